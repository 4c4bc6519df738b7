package read

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/mcode-dev/mcode/pkg/fsutil"
	"github.com/mcode-dev/mcode/pkg/imagefit"
	"github.com/mcode-dev/mcode/pkg/textenc"
	"github.com/mcode-dev/mcode/pkg/tool"
)

// image sends a picture to the model: as it is when it fits the limits,
// else downscaled (and re-encoded) until it does (package imagefit).
func (r *reading) image(ctx context.Context, ft textenc.FileType) (*tool.Response, error) {
	r.ignorePaging("image", true, true)
	r.result.Kind = KindImage
	r.result.MIME = ft.MIME
	data, err := r.readAll("image", MaxImageBytes)
	if err != nil {
		return nil, err
	}
	lim := imagefit.LimitsOf(r.env.Config)
	fit, err := imagefit.Fit(ctx, data, lim, MaxImagePixels)
	var corrupt *imagefit.CorruptError
	var pixels *imagefit.PixelsError
	switch {
	case errors.As(err, &corrupt):
		return nil, r.corruptImage(ft.Name, corrupt.Err)
	case errors.As(err, &pixels):
		return nil, &tool.Error{Code: tool.CodeTooLarge,
			Message: fmt.Sprintf("%s is %d×%d pixels, over the %d megapixels read decodes", r.display, pixels.Width, pixels.Height, MaxImagePixels/1_000_000),
			Hint:    "make a smaller copy with bash first, e.g. convert IN -resize 2000x2000 OUT.png"}
	case err != nil:
		return nil, err
	}
	orig := Image{MIME: ft.MIME, Width: fit.OrigWidth, Height: fit.OrigHeight, Bytes: int64(len(data))}
	media := &Media{MIME: ft.MIME, Width: fit.Width, Height: fit.Height, Bytes: len(fit.Data), Original: orig, Resized: fit.Resized}
	if fit.Resized {
		media.MIME = fit.MIME
		if fit.Format == "gif" {
			r.note("the GIF was resized from its first frame only")
		}
	}
	r.result.Media = media

	out := fmt.Sprintf("%s: %s, %d×%d px, %s", r.display, ft.Name, orig.Width, orig.Height, fsutil.HumanBytes(orig.Bytes))
	if media.Resized {
		out += fmt.Sprintf("; original %d×%d → sent %d×%d %s, %s (%s of base64), to fit %d×%d px and %s of base64",
			orig.Width, orig.Height, media.Width, media.Height, media.MIME, fsutil.HumanBytes(int64(media.Bytes)),
			fsutil.HumanBytes(int64(imagefit.Base64Len(media.Bytes))), lim.Width, lim.Height, fsutil.HumanBytes(int64(lim.Base64Bytes)))
	} else {
		out += "; not resized"
	}
	if r.env.Config != nil && r.env.Config.Models.Capabilities != nil {
		if on, set := r.env.Config.Models.Capabilities["images"]; set && !on {
			r.note("models.capabilities.images is off: the image data is not sent")
			return &tool.Response{Output: out + " (metadata only: models.capabilities.images is off)", Result: r.result}, nil
		}
	}
	enc := base64.StdEncoding.EncodeToString(fit.Data)
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
