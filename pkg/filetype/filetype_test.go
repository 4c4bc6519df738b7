package filetype

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/mcode-dev/mcode/internal/peer"
)

// Common formats, made here by the standard library and go-pdf/fpdf
// (office files by python3-docx and python3-openpyxl): the MIME type
// agrees with file --mime-type.
func TestAgreesWithFile(t *testing.T) {
	fileCmd := peer.Require(t, "file", "file")
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	files := map[string][]byte{
		"a.json": []byte(`{"a": [1, 2, {"b": null}]}` + "\n"),
		"a.html": []byte("<!DOCTYPE html>\n<html><head><title>x</title></head><body><p>hi</p></body></html>\n"),
		"a.xml":  []byte("<?xml version=\"1.0\"?>\n<root><a>1</a></root>\n"),
		"a.txt":  []byte("plain words\nover lines\n"),
		"a.sh":   []byte("#!/bin/sh\necho hi\n"),
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	files["a.png"] = bytes.Clone(b.Bytes())
	b.Reset()
	jpeg.Encode(&b, img, nil)
	files["a.jpg"] = bytes.Clone(b.Bytes())
	b.Reset()
	gif.Encode(&b, img, nil)
	files["a.gif"] = bytes.Clone(b.Bytes())
	b.Reset()
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("x.txt")
	w.Write([]byte("x"))
	zw.Close()
	files["a.zip"] = bytes.Clone(b.Bytes())
	b.Reset()
	gz := gzip.NewWriter(&b)
	gz.Write([]byte("hello"))
	gz.Close()
	files["a.gz"] = bytes.Clone(b.Bytes())
	b.Reset()
	tw := tar.NewWriter(&b)
	tw.WriteHeader(&tar.Header{Name: "x", Mode: 0o644, Size: 1})
	tw.Write([]byte("x"))
	tw.Close()
	files["a.tar"] = bytes.Clone(b.Bytes())
	b.Reset()
	p := fpdf.New("P", "mm", "A4", "")
	p.AddPage()
	p.Output(&b)
	files["a.pdf"] = bytes.Clone(b.Bytes())
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if py := peer.RequirePython(t, "docx", "python3-docx"); py != "" {
		peer.RequirePython(t, "openpyxl", "python3-openpyxl")
		script := `import docx, openpyxl, sys
d = docx.Document(); d.add_paragraph("x"); d.save(sys.argv[1] + "/a.docx")
wb = openpyxl.Workbook(); wb.active["A1"] = 1; wb.save(sys.argv[1] + "/a.xlsx")`
		if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		out, err := exec.Command(fileCmd, "--brief", "--mime-type", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSpace(string(out))
		got := Detect(path)
		if got.MIME != want {
			t.Errorf("%s: mime %q, file says %q", e.Name(), got.MIME, want)
		}
		if wantText := strings.HasPrefix(want, "text/") || want == "application/json"; got.IsText != wantText {
			t.Errorf("%s: is_text %v", e.Name(), got.IsText)
		}
	}
}

func TestTextDetails(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name         string
		data         []byte
		enc, endings string
	}{
		{"lf.txt", []byte("a\nb\n"), "utf-8", "lf"},
		{"crlf.txt", []byte("a\r\nb\r\n"), "utf-8", "crlf"},
		{"mixed.txt", []byte("a\r\nb\n"), "utf-8", "mixed"},
		{"none.txt", []byte("ab"), "utf-8", "none"},
		{"bom.txt", []byte("\ufeffa\n"), "utf-8-bom", "lf"},
		{"latin1.txt", []byte("caf\xe9\n"), "latin-1", "lf"},
		{"utf16.txt", []byte("\xff\xfea\x00\n\x00"), "utf-16le", "lf"},
	} {
		f := Detect(write(c.name, c.data))
		if !f.IsText || f.Encoding != c.enc || f.LineEnding != c.endings {
			t.Errorf("%s: %+v", c.name, f)
		}
	}
	if f := Detect(dir); f.Kind != KindDirectory || f.Bytes != nil {
		t.Errorf("dir: %+v", f)
	}
	if f := Detect("/dev/null"); f.Kind != KindCharDevice {
		t.Errorf("/dev/null: %+v", f)
	}
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if f := Detect(filepath.Join(dir, "dangling")); f.Kind != KindBrokenLink {
		t.Errorf("dangling: %+v", f)
	}
}
