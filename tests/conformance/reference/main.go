// kube-scheduler-reference: kube-scheduler's own framework (k8s.io/kubernetes,
// go.mod) run in-process on scenarios of the shared corpus format, printing
// results in that format. It is the reference of the differential
// conformance tests (tests/conformance/README.md): `tightpack replay` must
// decide as this program decides.
//
//	kube-scheduler-reference [--jsonl] [--config-dir DIR] [FILE|-]
//
// No API server and no scheduling queue: the scenario's nodes and bound pods
// go into the scheduler's cache (pkg/scheduler/backend/cache; for v1.30, whose
// cache is internal, a copy of it, snapshot_v130.go) and a snapshot of it,
// and the framework built from the scenario's KubeSchedulerConfiguration
// profile (frameworkruntime.NewFramework with the in-tree registry) runs
// PreFilter, Filter on every node, PreScore, Score with NormalizeScore and
// weights, and PostFilter (DefaultPreemption) for the FailedScheduling message,
// as pkg/scheduler/schedule_one.go does.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

func main() {
	jsonl := flag.Bool("jsonl", false, "one scenario per input line, one result per output line")
	configDir := flag.String("config-dir", "", "folder of default-scheduler.yaml, z2jh-user-scheduler.yaml and tightpack.yaml (default: the repository's config/, found from the binary's or the working folder)")
	parallelism := flag.Int("parallelism", 16, "the framework's parallelism (kube-scheduler's default is 16)")
	compat := flag.String("compat", "", "comma-separated 1.26 behaviours to put back (compat.go), or all")
	timings := flag.String("timings", "", "append one line per incoming pod to this file: scenario index, pod, nodes, decision nanoseconds")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: kube-scheduler-reference [--jsonl] [--config-dir DIR] [--compat all|LIST] [--parallelism N] [--timings FILE] [FILE|-]\n\n"+
			"Reads scenarios in the shared corpus format ({\"profile\", \"nodes\", \"pods\", \"incoming\"}, or a corpus line\n"+
			"with \"scenario\") and prints kube-scheduler's decisions in the corpus result format.\n\n")
		flag.PrintDefaults()
	}
	percentage := flag.Int("percentage-of-nodes-to-score", -1, "override the scenario's percentageOfNodesToScore (0: kube-scheduler's adaptive default; default: the scenario's, else 100)")
	version := flag.Bool("version", false, "print the kube-scheduler module version and exit")
	quantities := flag.Bool("quantities", false, "read one JSON string per line, a quantity's spelling, and print resource.ParseQuantity's Value() and MilliValue() of it (tests/conformance/quantities.py)")
	podRequests := flag.Bool("pod-requests", false, "read one JSON pod per line and print what the scheduler's NodeInfo counts of it (requested, non-zero requested; tests/conformance/quantities.py)")
	flag.Parse()
	klog.SetLogger(logr.Discard())
	if *version {
		fmt.Println("kube-scheduler-reference: k8s.io/kubernetes " + kubernetesVersion())
		return
	}
	if *podRequests {
		if err := runPodRequests(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
			os.Exit(2)
		}
		return
	}
	if *quantities {
		if err := runQuantities(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
			os.Exit(2)
		}
		return
	}

	dir, err := findConfigDir(*configDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
		os.Exit(2)
	}
	in := io.Reader(os.Stdin)
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	if flag.NArg() == 1 && flag.Arg(0) != "-" {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	cs, err := parseCompat(*compat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
		os.Exit(2)
	}
	r := &runner{configDir: dir, parallelism: *parallelism, compat: cs, percentage: int32(*percentage)}
	if *timings != "" {
		tf, err := os.OpenFile(*timings, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
			os.Exit(2)
		}
		defer tf.Close()
		r.timings = bufio.NewWriter(tf)
		defer r.timings.Flush()
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	ctx := klog.NewContext(context.Background(), logr.Discard())

	if !*jsonl {
		data, err := io.ReadAll(in)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
			os.Exit(2)
		}
		writeJSON(out, r.run(ctx, 0, data))
		return
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	index := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		writeJSON(out, r.run(ctx, index, line))
		index++
		if index%64 == 0 {
			out.Flush()
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "kube-scheduler-reference:", err)
		os.Exit(2)
	}
}

// kubernetesVersion is the k8s.io/kubernetes module this binary was built from.
func kubernetesVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "k8s.io/kubernetes" {
				return m.Version
			}
		}
	}
	return "(unknown)"
}

func writeJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "encoding the result: " + err.Error()})
	}
	w.Write(b)
	w.Write([]byte("\n"))
}

// findConfigDir returns the folder of the engine's KubeSchedulerConfiguration
// files: the flag, else <repo>/config found from the binary
// (build/conformance/kube-scheduler-reference) or from the working folder.
func findConfigDir(flagValue string) (string, error) {
	candidates := []string{}
	if flagValue != "" {
		candidates = append(candidates, flagValue)
	} else {
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "..", "config"))
		}
		candidates = append(candidates, "config", filepath.Join("..", "..", "..", "config"))
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "default-scheduler.yaml")); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("no default-scheduler.yaml in %v: pass --config-dir", candidates)
}

type runner struct {
	configDir   string
	parallelism int
	timings     *bufio.Writer
	compat      *compatState
	percentage  int32 // < 0: the scenario's
	frameworks  map[string]*cachedFramework
}

func (r *runner) recordTiming(index int, pod string, nodes int, d time.Duration) {
	if r.timings != nil {
		fmt.Fprintf(r.timings, "%d\t%s\t%d\t%d\n", index, pod, nodes, d.Nanoseconds())
	}
}
