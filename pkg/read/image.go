package read

import (
	"bytes"
	"context"
	"encoding/base64"
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
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// The images a model takes as they are; others are refused as binary.
var imageMIMEs = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// jpegQualities are tried in turn when a resized image must shrink to fit
// the base64 budget, before its pixel size is reduced further.
var jpegQualities = []int{85, 70, 55}

// imageLimits are the configured bounds of an image sent to the model.
type imageLimits struct {
	width, height int
	base64Bytes   int
}

func limitsOf(env *tool.Env) imageLimits {
	cfg := config.Defaults().Read
	if env.Config != nil {
		cfg = env.Config.Read
	}
	return imageLimits{cfg.MaxImageWidth, cfg.MaxImageHeight, cfg.MaxImageBase64KiB * 1024}
}

// base64Len is the length of the base64 text of n bytes.
func base64Len(n int) int { return (n + 2) / 3 * 4 }

// image sends a picture to the model: as it is when it fits the limits,
// else downscaled (and re-encoded) until it does.
func (r *reading) image(ctx context.Context, ft textenc.FileType) (*tool.Response, error) {
	r.ignorePaging("image", true, true)
	r.result.Kind = KindImage
	r.result.MIME = ft.MIME
	data, err := r.readAll("image", MaxImageBytes)
	if err != nil {
		return nil, err
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, r.corruptImage(ft.Name, err)
	}
	orig := Image{MIME: ft.MIME, Width: cfg.Width, Height: cfg.Height, Bytes: int64(len(data))}
	if int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("%s is %d×%d pixels, over the %d megapixels read decodes", r.display, cfg.Width, cfg.Height, MaxImagePixels/1_000_000),
			Hint:    "make a smaller copy with bash first, e.g. convert IN -resize 2000x2000 OUT.png"}
	}
	lim := limitsOf(r.env)
	media := &Media{MIME: ft.MIME, Width: cfg.Width, Height: cfg.Height, Bytes: len(data), Original: orig}
	r.result.Media = media
	// Decode in full even an image sent as it is: a truncated file must
	// not reach the model's API, which would refuse the whole request.
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, r.corruptImage(ft.Name, err)
	}
	sent := data
	if cfg.Width > lim.width || cfg.Height > lim.height || base64Len(len(data)) > lim.base64Bytes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if format == "gif" {
			r.note("the GIF was resized from its first frame only")
		}
		var mime string
		sent, mime, media.Width, media.Height, err = fitImage(ctx, img, format, lim)
		if err != nil {
			return nil, err
		}
		media.MIME, media.Bytes, media.Resized = mime, len(sent), true
	}

	out := fmt.Sprintf("%s: %s, %d×%d px, %s", r.display, ft.Name, orig.Width, orig.Height, fsutil.HumanBytes(orig.Bytes))
	if media.Resized {
		out += fmt.Sprintf("; original %d×%d → sent %d×%d %s, %s (%s of base64), to fit %d×%d px and %s of base64",
			orig.Width, orig.Height, media.Width, media.Height, media.MIME, fsutil.HumanBytes(int64(media.Bytes)),
			fsutil.HumanBytes(int64(base64Len(media.Bytes))), lim.width, lim.height, fsutil.HumanBytes(int64(lim.base64Bytes)))
	} else {
		out += "; not resized"
	}
	if r.env.Config != nil && r.env.Config.Models.Capabilities != nil {
		if on, set := r.env.Config.Models.Capabilities["images"]; set && !on {
			r.note("models.capabilities.images is off: the image data is not sent")
			return &tool.Response{Output: out + " (metadata only: models.capabilities.images is off)", Result: r.result}, nil
		}
	}
	enc := base64.StdEncoding.EncodeToString(sent)
	if r.params.IncludeData {
		media.Data = &enc
		out += ". Its base64 is in result.media.data."
	} else {
		out += ". The image goes to an MCP client as image content; this JSON leaves its base64 out (pass include_data, --include-data, for result.media.data), or view the file itself with an image viewer."
	}
	return &tool.Response{Output: out, Result: r.result,
		Media: []tool.Media{{Type: "image", MIMEType: media.MIME, Data: enc, Width: media.Width, Height: media.Height}}}, nil
}

func (r *reading) corruptImage(name string, err error) error {
	return &tool.Error{Code: tool.CodeCorruptFile,
		Message: fmt.Sprintf("%s looks like a %s but does not decode: %v", r.display, name, err),
		Hint:    "the file may be truncated or damaged; check it with bash (file, identify)"}
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
func fitImage(ctx context.Context, img image.Image, format string, lim imageLimits) ([]byte, string, int, int, error) {
	b := img.Bounds()
	w, h := fitDims(b.Dx(), b.Dy(), lim.width, lim.height)
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
			if base64Len(buf.Len()) <= lim.base64Bytes {
				return buf.Bytes(), "image/png", w, h, nil
			}
		}
		flat := flatten(scaled)
		for _, q := range jpegQualities {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, flat, &jpeg.Options{Quality: q}); err != nil {
				return nil, "", 0, 0, err
			}
			if base64Len(buf.Len()) <= lim.base64Bytes {
				return buf.Bytes(), "image/jpeg", w, h, nil
			}
		}
		w, h = max(1, w*3/4), max(1, h*3/4)
	}
	return nil, "", 0, 0, &tool.Error{Code: tool.CodeTooLarge,
		Message: fmt.Sprintf("the image does not fit %s of base64 even at %d×%d", fsutil.HumanBytes(int64(lim.base64Bytes)), w, h),
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
