// Command netpol-judge says which connections a set of NetworkPolicies allows, as
// cyclonus (github.com/mattfenwick/cyclonus, the version go.mod names) simulates
// NetworkPolicy semantics: the chart test judges the rendered policies with an
// existing simulator rather than with this project's own reading of the API.
//
//	netpol-judge < {"policies": [NetworkPolicy, ...], "traffic": [Traffic, ...]}
//
// Each Traffic is cyclonus' own (matcher.Traffic, the shape `cyclonus analyze
// --mode query-traffic --traffic-path` reads): Source and Destination peers with
// Internal {PodLabels, NamespaceLabels, Namespace} or an IP, ResolvedPort,
// ResolvedPortName, Protocol. Standard output: one {"ingress", "egress",
// "allowed"} per Traffic, in order. Bad input: a message on standard error, exit 2.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	networkingv1 "k8s.io/api/networking/v1"
)

type request struct {
	Policies []*networkingv1.NetworkPolicy `json:"policies"`
	Traffic  []*matcher.Traffic            `json:"traffic"`
}

type verdict struct {
	Ingress bool `json:"ingress"`
	Egress  bool `json:"egress"`
	Allowed bool `json:"allowed"`
}

func main() {
	var req request
	decoder := json.NewDecoder(os.Stdin)
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "netpol-judge: standard input: %v\n", err)
		os.Exit(2)
	}
	for i, t := range req.Traffic {
		if t == nil || t.Source == nil || t.Destination == nil {
			fmt.Fprintf(os.Stderr, "netpol-judge: traffic[%d]: needs Source and Destination\n", i)
			os.Exit(2)
		}
	}
	// Not simplified: the policies as written, rule by rule.
	policy := matcher.BuildNetworkPolicies(false, req.Policies)
	verdicts := make([]verdict, 0, len(req.Traffic))
	for _, t := range req.Traffic {
		result := policy.IsTrafficAllowed(t)
		verdicts = append(verdicts, verdict{
			Ingress: result.Ingress.IsAllowed(),
			Egress:  result.Egress.IsAllowed(),
			Allowed: result.IsAllowed(),
		})
	}
	if err := json.NewEncoder(os.Stdout).Encode(verdicts); err != nil {
		fmt.Fprintf(os.Stderr, "netpol-judge: standard output: %v\n", err)
		os.Exit(1)
	}
}
