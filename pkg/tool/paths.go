package tool

import (
	"encoding/json"
)

// PathUse is one path a call touches, and how. The path policy (the
// guard's sensitive and outside-the-root rules, the sandbox's writable
// set) judges every path a call names, whichever tool names it.
type PathUse struct {
	// Path is as the caller gave it (relative to the root, ~, absolute).
	Path string `json:"path"`
	// Write: the call creates, changes or deletes what is there.
	Write bool `json:"write,omitempty"`
	// Delete: the call removes the path itself; a symbolic link there is
	// removed, not followed.
	Delete bool `json:"delete,omitempty"`
}

// PathParam declares that a parameter holds a path, or a list of paths.
type PathParam struct {
	Field  string
	Write  bool
	Delete bool
}

// PathParams is a Spec.Paths for the common case: the paths are the
// values of the named parameters (a string, or a list of strings).
func PathParams(params ...PathParam) func(args json.RawMessage) []PathUse {
	return func(args json.RawMessage) []PathUse {
		var fields map[string]json.RawMessage
		if json.Unmarshal(args, &fields) != nil {
			return nil
		}
		var out []PathUse
		for _, p := range params {
			raw, ok := fields[p.Field]
			if !ok {
				continue
			}
			var one string
			var many []string
			switch {
			case json.Unmarshal(raw, &one) == nil:
				many = []string{one}
			case json.Unmarshal(raw, &many) == nil:
			default:
				continue
			}
			for _, path := range many {
				out = append(out, PathUse{Path: path, Write: p.Write || p.Delete, Delete: p.Delete})
			}
		}
		return out
	}
}

// TouchesPaths says whether the tool declares the paths its calls touch.
func (t *Tool) TouchesPaths() bool { return t.spec.Paths != nil }

// Paths lists the paths a call with these arguments touches (after
// Normalize: the parameters' own names); nil for a tool that declares
// none.
func (t *Tool) Paths(args json.RawMessage) []PathUse {
	if t.spec.Paths == nil {
		return nil
	}
	return t.spec.Paths(args)
}

// URL is the URL a call with these arguments fetches, and whether the
// tool declares one (Spec.URLParam).
func (t *Tool) URL(args json.RawMessage) (string, bool) {
	if t.spec.URLParam == "" {
		return "", false
	}
	var fields map[string]json.RawMessage
	var u string
	if json.Unmarshal(args, &fields) == nil {
		_ = json.Unmarshal(fields[t.spec.URLParam], &u)
	}
	return u, true
}
