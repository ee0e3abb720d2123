package main

import (
	"encoding/json"
	"sort"
)

func jsonString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// judgedView is the part of a result that the corpus' compare.py judges
// (per scale-up loop, nodeGroup, delta, estimated, the set of pods; the
// unhelped set; scale-down unneeded, removable, blocked), as one string, to
// tell whether two runs of a scenario decided the same.
func judgedView(res map[string]any) string {
	type up struct {
		Loop      any      `json:"loop"`
		NodeGroup any      `json:"nodeGroup"`
		Delta     any      `json:"delta"`
		Estimated any      `json:"estimated"`
		Pods      []string `json:"pods"`
	}
	v := struct {
		ScaleUp   []up           `json:"scaleUp"`
		Unhelped  []string       `json:"unhelped"`
		ScaleDown map[string]any `json:"scaleDown,omitempty"`
	}{}
	if ups, ok := res["scaleUp"].([]map[string]any); ok {
		for _, u := range ups {
			pods, _ := u["pods"].([]string)
			p := append([]string(nil), pods...)
			sort.Strings(p)
			v.ScaleUp = append(v.ScaleUp, up{u["loop"], u["nodeGroup"], u["delta"], u["estimated"], p})
		}
	}
	if un, ok := res["unhelped"].([]string); ok {
		v.Unhelped = un
	}
	if sd, ok := res["scaleDown"].(map[string]any); ok {
		v.ScaleDown = map[string]any{"unneeded": sd["unneeded"], "removable": sd["removable"], "blocked": sd["blocked"]}
	}
	b, _ := json.Marshal(v)
	return string(b)
}
