// cluster-autoscaler-reference: cluster-autoscaler's own decision loop
// (StaticAutoscaler.RunOnce from k8s.io/autoscaler/cluster-autoscaler/core,
// go.mod) run in-process on scenarios of the shared autoscaler corpus format
// (../../shared/autoscaler/README.md), printing results in that format. It is
// the reference of the autoscaler differential conformance tests
// (../README.md): `tightpack autoscale` must decide as this program decides.
//
//	cluster-autoscaler-reference [--jsonl] [--compat all|LIST] [--repeat N] [--timings FILE] [FILE|-]
//
// No API server and no cloud: the scenario's objects are served by listers
// (harness.go), its node groups by cloud-provider/test's TestCloudProvider,
// and the autoscaler is wired as cluster-autoscaler's builder package wires it
// (every flag at its default, config/flags), then RunOnce runs once per
// simulated 10 s loop until a loop scales nothing up. See README.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

const caModule = "k8s.io/autoscaler/cluster-autoscaler"

func main() {
	fs := flag.NewFlagSet("cluster-autoscaler-reference", flag.ExitOnError)
	jsonl := fs.Bool("jsonl", false, "one scenario per input line, one result per output line (the default reads one scenario from the whole input)")
	repeat := fs.Int("repeat", 1, "run each scenario N times; when the judged fields differ between runs (cluster-autoscaler walks Go maps in random order) the result carries \"unstable\": true and the variants")
	timings := fs.String("timings", "", "append one line per scenario to this file: index, loops, nanoseconds in the scenario's RunOnce loops, nanoseconds for the whole line (decoding, wiring the autoscaler, the loops, the result)")
	compat := fs.String("compat", "", "comma-separated cluster-autoscaler 1.26 behaviours to put back (compat.go), or all")
	version := fs.Bool("version", false, "print the cluster-autoscaler and kubernetes module versions and exit")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: cluster-autoscaler-reference [--jsonl] [--compat all|LIST] [--repeat N] [--timings FILE] [FILE|-]\n\n"+
			"Reads scenarios in the shared autoscaler corpus format (a corpus line {\"scenario\", ...} or a bare\n"+
			"scenario) and prints what cluster-autoscaler's StaticAutoscaler.RunOnce decides, in the corpus\n"+
			"result format. Exit status: 0, or 1 when some input line was rejected (its output line is\n"+
			"{\"error\": ...}), 2 on bad usage or unreadable input.\n\n")
		fs.PrintDefaults()
	}
	fs.Parse(os.Args[1:])
	klog.SetLogger(logr.Discard())
	if *version {
		fmt.Println("cluster-autoscaler-reference: " + versionString())
		return
	}
	if *repeat < 1 || fs.NArg() > 1 {
		fs.Usage()
		os.Exit(2)
	}
	in := io.Reader(os.Stdin)
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "cluster-autoscaler-reference:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	cs, err := parseCompat(*compat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster-autoscaler-reference:", err)
		os.Exit(2)
	}
	h, err := newHarness(cs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster-autoscaler-reference: setting up cluster-autoscaler:", err)
		os.Exit(2)
	}
	var tw *bufio.Writer
	if *timings != "" {
		tf, err := os.OpenFile(*timings, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cluster-autoscaler-reference:", err)
			os.Exit(2)
		}
		defer tf.Close()
		tw = bufio.NewWriter(tf)
		defer tw.Flush()
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	failed := false
	one := func(index int, line []byte) {
		t0 := time.Now()
		res, loops, elapsed := h.runLine(index+1, line, *repeat)
		if _, bad := res["error"]; bad {
			failed = true
		}
		writeJSON(out, res)
		if tw != nil {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\n", index, loops, elapsed.Nanoseconds(), time.Since(t0).Nanoseconds())
		}
	}
	if !*jsonl {
		data, err := io.ReadAll(in)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cluster-autoscaler-reference:", err)
			os.Exit(2)
		}
		one(0, data)
	} else {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		index := 0
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			one(index, line)
			index++
			if index%16 == 0 || in == io.Reader(os.Stdin) {
				out.Flush() // a line at a time when piped, for callers that wait on each answer
			}
		}
		if err := sc.Err(); err != nil {
			out.Flush()
			fmt.Fprintln(os.Stderr, "cluster-autoscaler-reference:", err)
			os.Exit(2)
		}
	}
	out.Flush()
	if tw != nil {
		tw.Flush()
	}
	if failed {
		os.Exit(1)
	}
}

// versionString names the modules this binary was built from.
func versionString() string {
	ca, kube := "(unknown)", "(unknown)"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			v := m.Version
			if m.Replace != nil {
				v = m.Replace.Version
			}
			switch m.Path {
			case caModule:
				ca = v
			case "k8s.io/kubernetes":
				kube = v
			}
		}
	}
	s := caModule + " " + ca
	// A pseudo-version's timestamp is the commit's: v0.0.0-20260423214646-fad7e9977a51.
	if parts := strings.Split(ca, "-"); len(parts) == 3 && len(parts[1]) == 14 {
		if t, err := time.Parse("20060102150405", parts[1]); err == nil {
			s += " (master " + t.Format("2006-01-02") + ")"
		}
	}
	return s + ", k8s.io/kubernetes " + kube
}

func writeJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "encoding the result: " + err.Error()})
	}
	w.Write(b)
	w.Write([]byte("\n"))
}
