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
	sent := data
	if cfg.Width > lim.width || cfg.Height > lim.height || base64Len(len(data)) > lim.base64Bytes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, r.corruptImage(ft.Name, err)
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

	out := fmt.Sprintf("%s: %s, %d×%d px, %s", r.display, ft.Name, orig.Width, orig.Height, humanBytes(orig.Bytes))
	if media.Resized {
		out += fmt.Sprintf("; original %d×%d → sent %d×%d %s, %s (%s of base64), to fit %d×%d px and %s of base64",
			orig.Width, orig.Height, media.Width, media.Height, media.MIME, humanBytes(int64(media.Bytes)),
			humanBytes(int64(base64Len(media.Bytes))), lim.width, lim.height, humanBytes(int64(lim.base64Bytes)))
	} else {
		out += "; sent as it is"
	}
	if r.env.Config != nil && r.env.Config.Models.Capabilities != nil {
		if on, set := r.env.Config.Models.Capabilities["images"]; set && !on {
			r.note("models.capabilities.images is off: the image data is not sent")
			return &tool.Response{Output: out + " (metadata only: models.capabilities.images is off)", Result: r.result}, nil
		}
	}
	enc := base64.StdEncoding.EncodeToString(sent)
	media.Data = &enc
	return &tool.Response{Output: out + ".", Result: r.result}, nil
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
		Message: fmt.Sprintf("the image does not fit %s of base64 even at %d×%d", humanBytes(int64(lim.base64Bytes)), w, h),
		Hint:    "raise read.maxImageBase64KiB in the config"}
}

// scale resamples img to w×h with a Catmull-Rom filter, which keeps text
// in screenshots legible when it shrinks.
func scale(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if b.Dx() == w && b.Dy() == h {
		return img
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
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
