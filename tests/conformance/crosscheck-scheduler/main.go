// kube-scheduler-tightpack: kube-scheduler v1.37.2's own command
// (cmd/kube-scheduler: app.NewSchedulerCommand, cli.Run), with one
// out-of-tree plugin registered the way out-of-tree plugins are meant to be
// (app.WithPlugin): TightpackCohort, the tightpack profile's own score
// (config/tightpack.yaml), from the reference's cohort.go, which build.sh
// puts beside this file. crosscheck.py runs it for scenarios of the
// tightpack profile; every other profile runs build/controlplane/kube-scheduler.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version" // for version metric registration
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	command := app.NewSchedulerCommand(app.WithPlugin(cohortName, newCohort))
	os.Exit(cli.Run(command))
}
