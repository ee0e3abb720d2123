// The Dask worker the suites ask about: a pod tolerating the demo cluster's
// dedicated worker pool and requesting 1 cpu and 4Gi, plus `extra` requests.
export function daskWorker(replicas, extra = {}) {
  return {
    pod: {
      metadata: { name: 'dask-worker', namespace: 'daskhub' },
      spec: {
        tolerations: [
          {
            key: 'dask',
            operator: 'Equal',
            value: 'worker',
            effect: 'NoSchedule'
          }
        ],
        containers: [
          {
            name: 'worker',
            resources: { requests: { cpu: '1', memory: '4Gi', ...extra } }
          }
        ]
      }
    },
    replicas
  };
}
