package markdown

import (
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHangHunt(t *testing.T) {
	dir := os.Getenv("MD_HANG")
	if dir == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(dir + "/*")
	var seedsIn []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		s := string(b)
		if i := strings.Index(s, "string("); i >= 0 {
			u, err := strconv.Unquote(strings.TrimSpace(s[i+7 : strings.LastIndex(s, ")")]))
			if err == nil {
				seedsIn = append(seedsIn, u)
			}
		}
	}
	seedsIn = append(seedsIn, seeds...)
	try := func(s string) {
		done := make(chan bool, 1)
		go func() { shapes([]byte(s)); done <- true }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("hang on %q", s)
		}
	}
	for _, s := range seedsIn {
		try(s)
	}
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"*", "_", "~", "[", "]", "(", ")", "<", ">", "!", "`", "\\", "&", "#", "-", "=", "|", ":", " ", "\n", "a", "1.", "    ", "\t", "\"", "'", "<!--", "-->", "http://", "@", "x;", "&#"}
	for iter := 0; iter < 200000; iter++ {
		base := seedsIn[r.Intn(len(seedsIn))]
		var b strings.Builder
		for k := 0; k < 1+r.Intn(30); k++ {
			if r.Intn(3) == 0 && len(base) > 0 {
				i := r.Intn(len(base))
				b.WriteString(base[i:min(len(base), i+r.Intn(10))])
			} else {
				b.WriteString(alphabet[r.Intn(len(alphabet))])
			}
		}
		try(b.String())
	}
}
