package render

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/image/bmp"

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// testEnv is a workspace in a temp folder with the rich fixture and its
// four pictures.
func testEnv(t *testing.T) *tool.Env {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "rich.md"), src)
	m := image.NewRGBA(image.Rect(0, 0, 64, 32))
	for x := range 64 {
		for y := range 32 {
			m.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 8), 128, 255})
		}
	}
	for name, enc := range map[string]func(*os.File) error{
		"pic.png": func(f *os.File) error { return png.Encode(f, m) },
		"pic.jpg": func(f *os.File) error { return jpeg.Encode(f, m, nil) },
		"pic.gif": func(f *os.File) error { return gif.Encode(f, m, nil) },
		"pic.bmp": func(f *os.File) error { return bmp.Encode(f, m) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := enc(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	cfg := config.Defaults()
	return &tool.Env{Root: dir, UserHome: dir, Config: &cfg, Now: time.Now}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// render runs the tool through its registry entry, as a call would.
func render(t *testing.T, env *tool.Env, p Params) (*Result, error) {
	t.Helper()
	args, _ := json.Marshal(p)
	resp, err := Tool().Run(context.Background(), env, args)
	if err != nil {
		return nil, err
	}
	return resp.Result.(*Result), nil
}

func mustRender(t *testing.T, env *tool.Env, p Params) *Result {
	t.Helper()
	res, err := render(t, env, p)
	if err != nil {
		t.Fatalf("render %s: %v", p.Format, err)
	}
	return res
}

func errCode(err error) tool.Code {
	if e := tool.AsError(err); e != nil {
		return e.Code
	}
	return ""
}

// testPDFWriter is a PDF writer on a page, as a render of params p would
// make, under ctx.
func testPDFWriter(t *testing.T, ctx context.Context) *pdfWriter {
	t.Helper()
	j := &job{ctx: ctx, env: testEnv(t), images: map[string]*loadedImage{}}
	w, err := newPDFWriter(j, "", "")
	if err != nil {
		t.Fatal(err)
	}
	w.newPage()
	return w
}
