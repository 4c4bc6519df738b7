// Package imagefit makes a picture fit what a model takes: a PNG, JPEG,
// GIF or WebP decoded in full (a truncated file must never reach a
// model's API, which would refuse the whole request), downscaled to the
// configured pixel limits and re-encoded until its base64 fits the
// budget. read sends files through it, fetch downloaded images.
package imagefit

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // registers the GIF decoder with image.Decode
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers the WebP decoder with image.Decode

	"github.com/mcode-dev/mcode/pkg/config"
	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// MIMEs are the image types a model takes as they are; others are not
// images to it.
var MIMEs = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Supported says whether mime is one of MIMEs.
func Supported(mime string) bool {
	for _, m := range MIMEs {
		if m == mime {
			return true
		}
	}
	return false
}

// jpegQualities are tried in turn when a resized image must shrink to fit
// the base64 budget, before its pixel size is reduced further.
var jpegQualities = []int{85, 70, 55}

// Limits are the configured bounds of an image sent to the model.
type Limits struct {
	Width, Height int
	Base64Bytes   int
}

// LimitsOf reads the limits from the config (read.maxImage*); nil is the
// defaults.
func LimitsOf(cfg *config.Config) Limits {
	r := config.Defaults().Read
	if cfg != nil {
		r = cfg.Read
	}
	return Limits{r.MaxImageWidth, r.MaxImageHeight, r.MaxImageBase64KiB * 1024}
}

// Base64Len is the length of the base64 text of n bytes.
func Base64Len(n int) int { return (n + 2) / 3 * 4 }

// Fitted is an image as it is sent, and the original it came from.
type Fitted struct {
	Data          []byte
	MIME          string
	Width, Height int
	Resized       bool
	// Format is the decoder's name of the original (png, jpeg, gif, webp).
	Format                string
	OrigWidth, OrigHeight int
}

// CorruptError is an image that does not decode.
type CorruptError struct{ Err error }

func (e *CorruptError) Error() string { return e.Err.Error() }

// PixelsError is an image with more pixels than the caller decodes.
type PixelsError struct{ Width, Height, Max int }

func (e *PixelsError) Error() string {
	return fmt.Sprintf("%d×%d pixels, over the %d megapixels decoded", e.Width, e.Height, e.Max/1_000_000)
}

// Fit decodes data (maxPixels bounds what is decoded) and returns it as
// it is when it fits lim, else downscaled and re-encoded until it does.
func Fit(ctx context.Context, data []byte, lim Limits, maxPixels int) (*Fitted, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, &CorruptError{err}
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return nil, &PixelsError{cfg.Width, cfg.Height, maxPixels}
	}
	f := &Fitted{Data: data, MIME: "image/" + format, Width: cfg.Width, Height: cfg.Height,
		Format: format, OrigWidth: cfg.Width, OrigHeight: cfg.Height}
	// Decode in full even an image sent as it is (see the package doc).
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, &CorruptError{err}
	}
	if cfg.Width <= lim.Width && cfg.Height <= lim.Height && Base64Len(len(data)) <= lim.Base64Bytes {
		return f, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.Data, f.MIME, f.Width, f.Height, err = fitImage(ctx, img, format, lim)
	if err != nil {
		return nil, err
	}
	f.Resized = true
	return f, nil
}

// fitDims scales w×h down to fit within maxW×maxH, keeping the aspect
// ratio; a side never goes below one pixel.
func fitDims(w, h, maxW, maxH int) (int, int) {
	if w <= maxW && h <= maxH {
		return w, h
	}
	// Compare w/maxW with h/maxH without floating point.
	if int64(w)*int64(maxH) >= int64(h)*int64(maxW) {
		return maxW, max(1, int(int64(h)*int64(maxW)/int64(w)))
	}
	return max(1, int(int64(w)*int64(maxH)/int64(h))), maxH
}

// fitImage downscales img to the pixel limits and encodes it within the
// base64 budget: PNG for sources that are drawings or have transparency
// (PNG, GIF), JPEG for photographs, then JPEG at lower qualities, then
// smaller sizes, until it fits.
func fitImage(ctx context.Context, img image.Image, format string, lim Limits) ([]byte, string, int, int, error) {
	b := img.Bounds()
	w, h := fitDims(b.Dx(), b.Dy(), lim.Width, lim.Height)
	preferPNG := format == "png" || format == "gif"
	for range 12 {
		if err := ctx.Err(); err != nil {
			return nil, "", 0, 0, err
		}
		scaled := scale(img, w, h)
		if preferPNG {
			var buf bytes.Buffer
			if err := png.Encode(&buf, scaled); err != nil {
				return nil, "", 0, 0, err
			}
			if Base64Len(buf.Len()) <= lim.Base64Bytes {
				return buf.Bytes(), "image/png", w, h, nil
			}
		}
		flat := flatten(scaled)
		for _, q := range jpegQualities {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, flat, &jpeg.Options{Quality: q}); err != nil {
				return nil, "", 0, 0, err
			}
			if Base64Len(buf.Len()) <= lim.Base64Bytes {
				return buf.Bytes(), "image/jpeg", w, h, nil
			}
		}
		w, h = max(1, w*3/4), max(1, h*3/4)
	}
	return nil, "", 0, 0, &tool.Error{Code: tool.CodeTooLarge,
		Message: fmt.Sprintf("the image does not fit %s of base64 even at %d×%d", fsutil.HumanBytes(int64(lim.Base64Bytes)), w, h),
		Hint:    "raise read.maxImageBase64KiB in the config"}
}

// scale resamples img to w×h: first a box filter by the whole factor the
// image shrinks by (fast, and the right anti-aliasing for it), then a
// Catmull-Rom filter for the rest, which keeps text in screenshots legible.
func scale(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if b.Dx() == w && b.Dy() == h {
		return img
	}
	if k := min(b.Dx()/w, b.Dy()/h); k >= 2 {
		rgba, ok := img.(*image.RGBA) // as PNGs without alpha decode
		if !ok {
			rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
			draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
		}
		img = boxReduce(rgba, k)
		if b = img.Bounds(); b.Dx() == w && b.Dy() == h {
			return img
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// boxReduce shrinks src by k in both directions, each pixel the mean of a
// k×k block (premultiplied colours average correctly); the edge rows and
// columns that do not fill a block are dropped.
func boxReduce(src *image.RGBA, k int) *image.RGBA {
	w, h := src.Rect.Dx()/k, src.Rect.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sums := make([]uint32, w*4)
	n := uint32(k * k)
	for y := 0; y < h; y++ {
		clear(sums)
		for dy := 0; dy < k; dy++ {
			row := src.Pix[(y*k+dy)*src.Stride:]
			for x := 0; x < w; x++ {
				s := sums[x*4 : x*4+4 : x*4+4]
				for dx := 0; dx < k; dx++ {
					px := row[(x*k+dx)*4 : (x*k+dx)*4+4 : (x*k+dx)*4+4]
					s[0] += uint32(px[0])
					s[1] += uint32(px[1])
					s[2] += uint32(px[2])
					s[3] += uint32(px[3])
				}
			}
		}
		out := dst.Pix[y*dst.Stride:]
		for i, s := range sums {
			out[i] = uint8((s + n/2) / n)
		}
	}
	return dst
}

// flatten puts an image with transparency on white, as JPEG has no alpha.
func flatten(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	dst := image.NewRGBA(img.Bounds())
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, img.Bounds().Min, draw.Over)
	return dst
}
