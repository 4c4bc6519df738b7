package nearest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"grep", "grpe", 2}, {"café", "cafe", 1}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestNames(t *testing.T) {
	got := Names("gerp", []string{"read", "grep", "glob", "edit"}, 2)
	if !slices.Equal(got, []string{"grep", "read"}) && !slices.Equal(got, []string{"grep", "glob"}) {
		t.Errorf("Names = %v", got)
	}
	if got := Names("outpt_mode", []string{"mode", "output_mode", "limit"}, 1); !slices.Equal(got, []string{"output_mode"}) {
		t.Errorf("Names = %v", got)
	}
	if got := Names("x", nil, 3); len(got) != 0 {
		t.Errorf("Names of nothing = %v", got)
	}
}
