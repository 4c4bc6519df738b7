package markdown

import (
	"os"
	"strings"
	"testing"
)

func TestShapeDebug(t *testing.T) {
	in := os.Getenv("MD_SHAPE")
	if in == "" {
		t.Skip()
	}
	for _, s := range strings.Split(in, "\x01") {
		s = strings.ReplaceAll(s, `\n`, "\n")
		a, b := shapes([]byte(s))
		t.Logf("%q\n ours: %s\n gold: %s", s, a, b)
	}
}
