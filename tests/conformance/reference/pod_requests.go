package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// runPodRequests answers --pod-requests: one JSON pod per input line; per
// output line, what the scheduler's NodeInfo counts of it once added
// (framework.NewNodeInfo: PodRequests summed as Quantities, then Value() /
// MilliValue()), as {"requested": {resource: amount}, "nonZero": {"cpu",
// "memory"}} or {"error": "…"} for a pod that does not decode. The property
// test tests/conformance/quantities.py holds tightpack's pod_requests to it.
func runPodRequests(in io.Reader, out io.Writer) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	w := bufio.NewWriter(out)
	defer w.Flush()
	for scanner.Scan() {
		var pod v1.Pod
		if err := json.Unmarshal(scanner.Bytes(), &pod); err != nil {
			msg, _ := json.Marshal(err.Error())
			fmt.Fprintf(w, "{\"error\":%s}\n", msg)
			continue
		}
		ni := framework.NewNodeInfo(&pod)
		requested := map[string]int64{}
		if r := ni.Requested; r != nil {
			if r.MilliCPU != 0 {
				requested["cpu"] = r.MilliCPU
			}
			if r.Memory != 0 {
				requested["memory"] = r.Memory
			}
			if r.EphemeralStorage != 0 {
				requested["ephemeral-storage"] = r.EphemeralStorage
			}
			for name, v := range r.ScalarResources {
				if v != 0 {
					requested[string(name)] = v
				}
			}
		}
		line, err := json.Marshal(map[string]any{
			"requested": requested,
			"nonZero": map[string]int64{"cpu": ni.NonZeroRequested.MilliCPU,
				"memory": ni.NonZeroRequested.Memory},
		})
		if err != nil {
			return err
		}
		w.Write(line)
		w.WriteString("\n")
	}
	return scanner.Err()
}
