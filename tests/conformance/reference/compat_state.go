package main

// The --compat switches that are on, and those that changed something: the
// same for every release; each release's compat file says which switches it
// has (compatSwitches) and which it refuses (compatRefused).

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// compatState: the switches that are on, and those that changed something
// in the scenario being decided (plugins run in parallel: a mutex).
type compatState struct {
	on      map[string]bool
	mu      sync.Mutex
	applied map[string]bool
}

func parseCompat(spec string) (*compatState, error) {
	c := &compatState{on: map[string]bool{}, applied: map[string]bool{}}
	if spec == "" || spec == "none" {
		return c, nil
	}
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimSpace(s)
		if s == "all" {
			for _, k := range compatSwitches {
				c.on[k] = true
			}
			continue
		}
		known := false
		for _, k := range compatSwitches {
			known = known || k == s
		}
		if why, ok := compatRefused[s]; ok {
			return nil, fmt.Errorf("--compat %s does not apply to k8s.io/kubernetes %s: %s", s, kubernetesVersion(), why)
		}
		if !known {
			return nil, fmt.Errorf("unknown --compat switch %q (%s, all)", s, strings.Join(compatSwitches, ", "))
		}
		c.on[s] = true
	}
	return c, nil
}

func (c *compatState) enabled(s string) bool { return c != nil && c.on[s] }

func (c *compatState) mark(s string) {
	c.mu.Lock()
	c.applied[s] = true
	c.mu.Unlock()
}

// take returns the switches applied since the last call, sorted, and resets them.
func (c *compatState) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for k := range c.applied {
		out = append(out, k)
	}
	sort.Strings(out)
	c.applied = map[string]bool{}
	return out
}

func (c *compatState) key() string {
	var on []string
	for k := range c.on {
		on = append(on, k)
	}
	sort.Strings(on)
	return strings.Join(on, ",")
}
