package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcode-dev/mcode/pkg/budget"
	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/dispatch"
	"github.com/mcode-dev/mcode/pkg/read"
	"github.com/mcode-dev/mcode/pkg/search"
	"github.com/mcode-dev/mcode/pkg/tool"
)

func realDispatcher(t *testing.T, root string) *dispatch.Dispatcher {
	t.Helper()
	reg, err := tool.NewRegistry(read.Tool(), search.GrepTool(), search.GlobTool())
	if err != nil {
		t.Fatal(err)
	}
	defaults := config.Defaults()
	cfg := &defaults
	home := t.TempDir()
	return dispatch.New(dispatch.Options{
		Registry: reg,
		Env:      &tool.Env{Root: root, DataDir: home, UserHome: home, Config: cfg, Now: time.Now},
		Budget:   budget.Budget{MaxInlineBytes: cfg.ToolResultCompaction.MaxInlineKiB * 1024, Dir: filepath.Join(home, budget.DirName), Now: time.Now},
		Timeout:  -1,
	})
}

// Calls of parallel tools may run side by side on one dispatcher; -race
// checks that nothing they share is written unguarded.
func TestConcurrentCallsOfParallelTools(t *testing.T) {
	root := t.TempDir()
	for i := range 20 {
		body := fmt.Sprintf("package p%d\n\nfunc Needle%d() {}\n", i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := realDispatcher(t, root)
	const calls = 200
	var wg sync.WaitGroup
	errs := make(chan string, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var name, args, want string
			switch i % 3 {
			case 0:
				name, args, want = "read", fmt.Sprintf(`{"path":"f%02d.go"}`, i%20), fmt.Sprintf("func Needle%d()", i%20)
			case 1:
				name, args, want = "grep", `{"pattern":"Needle1[0-9]","mode":"count"}`, "f19.go"
			case 2:
				name, args, want = "glob", `{"pattern":"*.go"}`, "f07.go"
			}
			env := d.Call(context.Background(), name, json.RawMessage(args))
			if !env.OK || !strings.Contains(env.OutputText(), want) {
				errs <- fmt.Sprintf("%s %s: ok=%v output %q error %+v", name, args, env.OK, env.OutputText(), env.Error)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// An image read travels as media beside the envelope, so a caller (mcp
// serve) can send it without knowing read's result type.
func TestImagesComeAsMedia(t *testing.T) {
	root := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "dot.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	env := realDispatcher(t, root).Call(context.Background(), "read", json.RawMessage(`{"path":"dot.png"}`))
	if !env.OK || len(env.Media) != 1 {
		t.Fatalf("envelope %+v", env)
	}
	m := env.Media[0]
	if m.Type != "image" || m.MIMEType != "image/png" || m.Width != 3 || m.Height != 2 || m.Data == "" {
		t.Errorf("media %+v", m)
	}
	data, _ := env.Marshal(false)
	if bytes.Contains(data, []byte(`"media":[`)) {
		t.Error("media reached the printed envelope's top level")
	}
}
