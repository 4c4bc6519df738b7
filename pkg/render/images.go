package render

import (
	"bytes"
	"image"
	_ "image/gif" // image.DecodeConfig knows the formats office files embed
	_ "image/jpeg"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/image/bmp"
)

// loadedImage is a picture read from disk, with its pixel size.
type loadedImage struct {
	Data          []byte
	Format        string // png, jpeg, gif, bmp
	Width, Height int
}

// MIME is the image's media type.
func (im *loadedImage) MIME() string { return "image/" + im.Format }

// image reads the picture src names, relative to the source's folder.
// What cannot be shown is a warning and nil: remote images are never
// fetched, SVG is not rasterized.
func (j *job) image(img *Image) *loadedImage {
	if im, ok := j.images[img.Src]; ok {
		return im
	}
	im := j.loadImage(img.Src)
	j.images[img.Src] = im
	return im
}

func (j *job) loadImage(src string) *loadedImage {
	if u, err := url.Parse(src); err == nil && u.Scheme != "" && u.Scheme != "file" && len(u.Scheme) > 1 {
		j.warn("image %s is not local: remote images are never fetched (download it and name the file)", clip(src, 80))
		return nil
	}
	p := src
	if u, err := url.Parse(src); err == nil {
		if u.Scheme == "file" {
			p = u.Path
		} else if unesc, err := url.PathUnescape(src); err == nil {
			p = unesc
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(j.baseDir, p)
	}
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		j.warn("image %s not found (looked for %s)", src, p)
		return nil
	}
	if info.Size() > MaxImageMiB<<20 {
		j.warn("image %s is larger than %d MiB; left out", src, MaxImageMiB)
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		j.warn("image %s cannot be read: %v", src, err)
		return nil
	}
	if strings.EqualFold(filepath.Ext(p), ".svg") || bytes.Contains(data[:min(len(data), 512)], []byte("<svg")) {
		j.warn("image %s is SVG, which render does not rasterize; convert it to PNG (e.g. rsvg-convert) and name the PNG", src)
		return nil
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		j.warn("image %s is not a PNG, JPEG, GIF or BMP picture; left out", src)
		return nil
	}
	return &loadedImage{Data: data, Format: format, Width: cfg.Width, Height: cfg.Height}
}

// asPNG returns the picture as PNG or JPEG bytes, the formats every
// writer takes: a BMP is converted.
func (im *loadedImage) asPNG() (*loadedImage, error) {
	if im.Format != "bmp" {
		return im, nil
	}
	m, err := bmp.Decode(bytes.NewReader(im.Data))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		return nil, err
	}
	return &loadedImage{Data: b.Bytes(), Format: "png", Width: im.Width, Height: im.Height}, nil
}

// fit scales a picture of w×h pixels (at 96 dpi) to at most maxW×maxH of
// some unit per inch, keeping its shape.
func fit(w, h int, perInch, maxW, maxH float64) (float64, float64) {
	fw, fh := float64(w)/96*perInch, float64(h)/96*perInch
	if fw > maxW {
		fh, fw = fh*maxW/fw, maxW
	}
	if fh > maxH {
		fw, fh = fw*maxH/fh, maxH
	}
	return fw, fh
}
