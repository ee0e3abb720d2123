package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"sigs.k8s.io/yaml"
)

// The scenario's "profile", as the corpus README defines it and as
// `tightpack replay` reads it (core/src/replay.cpp): a name, or an object
// naming a base profile with overrides, or a whole KubeSchedulerConfiguration.
// The base profiles are the engine's own configuration files (config/*.yaml).
var baseFiles = map[string]string{
	"default":        "default-scheduler.yaml",
	"most-allocated": "z2jh-user-scheduler.yaml",
	"tightpack":      "tightpack.yaml",
	"rtc":            "default-scheduler.yaml",
}

type resolvedProfile struct {
	name    string
	key     string // the configuration as JSON: frameworks are cached by it
	profile *config.KubeSchedulerProfile
	// percentage of nodes to score: 100 (every node), unless the
	// configuration sets percentageOfNodesToScore explicitly.
	percentage int32
}

func (r *runner) baseConfig(name string) (map[string]any, error) {
	file, ok := baseFiles[name]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (default, most-allocated, rtc, tightpack)", name)
	}
	data, err := os.ReadFile(filepath.Join(r.configDir, file))
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if name == "rtc" {
		args := fitArgs(firstProfile(cfg))
		args["scoringStrategy"] = map[string]any{
			"type":      "RequestedToCapacityRatio",
			"resources": []any{map[string]any{"name": "cpu", "weight": 1}, map[string]any{"name": "memory", "weight": 1}},
			"requestedToCapacityRatio": map[string]any{"shape": []any{
				map[string]any{"utilization": 0, "score": 0}, map[string]any{"utilization": 100, "score": 10}}},
		}
	}
	return cfg, nil
}

func firstProfile(cfg map[string]any) map[string]any {
	profiles, _ := cfg["profiles"].([]any)
	if len(profiles) == 0 {
		profiles = []any{map[string]any{}}
		cfg["profiles"] = profiles
	}
	p, ok := profiles[0].(map[string]any)
	if !ok {
		p = map[string]any{}
		profiles[0] = p
	}
	return p
}

func fitArgs(profile map[string]any) map[string]any {
	configs, _ := profile["pluginConfig"].([]any)
	for _, c := range configs {
		if m, ok := c.(map[string]any); ok && m["name"] == "NodeResourcesFit" {
			args, ok := m["args"].(map[string]any)
			if !ok {
				args = map[string]any{}
				m["args"] = args
			}
			return args
		}
	}
	args := map[string]any{}
	profile["pluginConfig"] = append(configs, map[string]any{"name": "NodeResourcesFit", "args": args})
	return args
}

// scoreList returns profile.plugins.score.<which>, creating it.
func scoreList(profile map[string]any, which string) []any {
	plugins, ok := profile["plugins"].(map[string]any)
	if !ok {
		plugins = map[string]any{}
		profile["plugins"] = plugins
	}
	score, ok := plugins["score"].(map[string]any)
	if !ok {
		score = map[string]any{}
		plugins["score"] = score
	}
	list, _ := score[which].([]any)
	return list
}

func setScoreList(profile map[string]any, which string, list []any) {
	scoreList(profile, which)
	profile["plugins"].(map[string]any)["score"].(map[string]any)[which] = list
}

func named(v any, name string) bool {
	m, ok := v.(map[string]any)
	return ok && m["name"] == name
}

func without(list []any, name string) []any {
	out := list[:0:0]
	for _, e := range list {
		if !named(e, name) {
			out = append(out, e)
		}
	}
	return out
}

func containsNamed(list []any, name string) bool {
	for _, e := range list {
		if named(e, name) {
			return true
		}
	}
	return false
}

func (r *runner) resolveProfile(spec json.RawMessage) (*resolvedProfile, error) {
	var cfg map[string]any
	name := "default"
	if len(spec) == 0 || string(spec) == "null" {
		spec = json.RawMessage(`"default"`)
	}
	var asString string
	if err := json.Unmarshal(spec, &asString); err == nil {
		name = asString
		base, err := r.baseConfig(name)
		if err != nil {
			return nil, err
		}
		cfg = base
	} else {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(spec, &o); err != nil {
			return nil, fmt.Errorf("profile: a name or an object: %w", err)
		}
		for k := range o {
			switch k {
			case "name", "scoringStrategy", "scoreWeights", "disabledScore", "schedulerConfig":
			case "release":
				// The engine's wording switch (v1.37, v1.36; v1.30 for this
				// program only): it answers only for the release it was built from.
				var rel string
				if err := json.Unmarshal(o[k], &rel); err != nil {
					return nil, fmt.Errorf("profile.release: a string")
				}
				if v := kubernetesVersion(); !strings.HasPrefix(v, rel+".") {
					return nil, fmt.Errorf("profile.release: %q, but this reference is k8s.io/kubernetes %s", rel, v)
				}
			default:
				return nil, fmt.Errorf("profile.%s: unknown field", k)
			}
		}
		if n, ok := o["name"]; ok {
			if err := json.Unmarshal(n, &name); err != nil {
				return nil, fmt.Errorf("profile.name: %w", err)
			}
		}
		if sc, ok := o["schedulerConfig"]; ok {
			if err := json.Unmarshal(sc, &cfg); err != nil || cfg == nil {
				return nil, fmt.Errorf("profile.schedulerConfig: an object")
			}
			if _, ok := cfg["profiles"]; !ok {
				cfg["profiles"] = []any{map[string]any{}}
			}
		} else {
			base, err := r.baseConfig(name)
			if err != nil {
				return nil, fmt.Errorf("profile.name: %w", err)
			}
			cfg = base
		}
		profile := firstProfile(cfg)
		if ss, ok := o["scoringStrategy"]; ok {
			var strategy map[string]any
			if err := json.Unmarshal(ss, &strategy); err != nil {
				return nil, fmt.Errorf("profile.scoringStrategy: %w", err)
			}
			// The corpus writes the shape beside the type; the configuration nests it.
			if shape, ok := strategy["shape"]; ok {
				strategy["requestedToCapacityRatio"] = map[string]any{"shape": shape}
				delete(strategy, "shape")
			}
			args := fitArgs(profile)
			if strategy["type"] == "RequestedToCapacityRatio" {
				if _, ok := strategy["requestedToCapacityRatio"]; !ok {
					if old, ok := args["scoringStrategy"].(map[string]any); ok {
						if rtc, ok := old["requestedToCapacityRatio"]; ok {
							strategy["requestedToCapacityRatio"] = rtc
						}
					}
				}
			}
			args["scoringStrategy"] = strategy
		}
		if sw, ok := o["scoreWeights"]; ok {
			var weights map[string]json.RawMessage
			if err := json.Unmarshal(sw, &weights); err != nil {
				return nil, fmt.Errorf("profile.scoreWeights: %w", err)
			}
			// In the order written, as the engine does.
			var order []string
			dec := json.NewDecoder(bytesReader(sw))
			dec.Token()
			for dec.More() {
				t, _ := dec.Token()
				k, _ := t.(string)
				order = append(order, k)
				var skip json.RawMessage
				dec.Decode(&skip)
			}
			for _, plugin := range order {
				var w any
				json.Unmarshal(weights[plugin], &w)
				setScoreList(profile, "enabled", without(scoreList(profile, "enabled"), plugin))
				if !containsNamed(scoreList(profile, "disabled"), plugin) {
					setScoreList(profile, "disabled", append(scoreList(profile, "disabled"), map[string]any{"name": plugin}))
				}
				setScoreList(profile, "enabled", append(scoreList(profile, "enabled"), map[string]any{"name": plugin, "weight": w}))
			}
		}
		if ds, ok := o["disabledScore"]; ok {
			var plugins []string
			if err := json.Unmarshal(ds, &plugins); err != nil {
				return nil, fmt.Errorf("profile.disabledScore: %w", err)
			}
			for _, plugin := range plugins {
				setScoreList(profile, "enabled", without(scoreList(profile, "enabled"), plugin))
				if !containsNamed(scoreList(profile, "disabled"), plugin) {
					setScoreList(profile, "disabled", append(scoreList(profile, "disabled"), map[string]any{"name": plugin}))
				}
			}
		}
	}
	if _, ok := cfg["apiVersion"]; !ok {
		cfg["apiVersion"] = "kubescheduler.config.k8s.io/v1"
	}
	if _, ok := cfg["kind"]; !ok {
		cfg["kind"] = "KubeSchedulerConfiguration"
	}
	// Every node is filtered and scored unless the configuration says otherwise.
	percentage := int32(100)
	if v, ok := cfg["percentageOfNodesToScore"].(float64); ok {
		percentage = int32(v)
	}
	if v, ok := firstProfile(cfg)["percentageOfNodesToScore"].(float64); ok {
		percentage = int32(v)
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("profile: decoding the KubeSchedulerConfiguration: %w", err)
	}
	decoded, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("profile: not a KubeSchedulerConfiguration but %T", obj)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(decoded); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if len(decoded.Profiles) == 0 {
		return nil, fmt.Errorf("profile: the configuration has no profile")
	}
	return &resolvedProfile{name: name, key: string(data), profile: &decoded.Profiles[0], percentage: percentage}, nil
}
