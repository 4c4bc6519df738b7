package imagefit

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"testing"
)

func gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	return img
}

func TestFitDims(t *testing.T) {
	cases := []struct{ w, h, mw, mh, ww, wh int }{
		{100, 50, 200, 200, 100, 50},
		{4000, 3000, 2000, 2000, 2000, 1500},
		{3000, 4000, 2000, 2000, 1500, 2000},
		{5000, 1, 2000, 2000, 2000, 1},
		{1, 5000, 2000, 2000, 1, 2000},
		{2001, 2001, 2000, 2000, 2000, 2000},
	}
	for _, c := range cases {
		if w, h := fitDims(c.w, c.h, c.mw, c.mh); w != c.ww || h != c.wh {
			t.Errorf("fitDims(%d×%d in %d×%d) = %d×%d, want %d×%d", c.w, c.h, c.mw, c.mh, w, h, c.ww, c.wh)
		}
	}
}

func TestBoxReduce(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 5, 4)) // the fifth column is dropped
	for y := 0; y < 4; y++ {
		for x := 0; x < 5; x++ {
			src.SetRGBA(x, y, color.RGBA{uint8(10 * (x + y)), 100, 0, 255})
		}
	}
	got := boxReduce(src, 2)
	if got.Bounds().Dx() != 2 || got.Bounds().Dy() != 2 {
		t.Fatalf("bounds %v", got.Bounds())
	}
	// Block (0,0) holds 0,10,10,20: mean 10. Block (1,1): 40,50,50,60: 50.
	if c := got.RGBAAt(0, 0); c != (color.RGBA{10, 100, 0, 255}) {
		t.Errorf("(0,0) = %v", c)
	}
	if c := got.RGBAAt(1, 1); c != (color.RGBA{50, 100, 0, 255}) {
		t.Errorf("(1,1) = %v", c)
	}
	for _, size := range [][4]int{{1000, 500, 400, 200}, {1000, 500, 500, 250}, {30, 30, 7, 7}, {640, 480, 639, 479}} {
		out := scale(gradient(size[0], size[1]), size[2], size[3])
		if out.Bounds().Dx() != size[2] || out.Bounds().Dy() != size[3] {
			t.Errorf("scale %v: got %v", size, out.Bounds())
		}
	}
}

// TestFit: an image within the limits is sent as it is, one over them
// downscaled to fit, a broken one and one with too many pixels refused.
func TestFit(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, gradient(300, 100)); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	ctx := context.Background()
	f, err := Fit(ctx, data, Limits{Width: 1000, Height: 1000, Base64Bytes: 1 << 20}, 1_000_000)
	if err != nil || f.Resized || !bytes.Equal(f.Data, data) || f.MIME != "image/png" || f.Width != 300 {
		t.Fatalf("as it is: %+v, %v", f, err)
	}
	f, err = Fit(ctx, data, Limits{Width: 150, Height: 150, Base64Bytes: 1 << 20}, 1_000_000)
	if err != nil || !f.Resized || f.Width != 150 || f.Height != 50 || f.OrigWidth != 300 {
		t.Fatalf("downscaled: %+v, %v", f, err)
	}
	if _, err := Fit(ctx, data[:len(data)/2], Limits{1000, 1000, 1 << 20}, 1_000_000); !errors.As(err, new(*CorruptError)) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := Fit(ctx, data, Limits{1000, 1000, 1 << 20}, 1000); !errors.As(err, new(*PixelsError)) {
		t.Errorf("too many pixels: %v", err)
	}
}
