package read

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// gradient is an image with detail, so that encoders cannot make it tiny.
func gradient(w, h int, noise bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{uint8(x), uint8(y), uint8(x + y), 255}
			if noise {
				c.R, c.G, c.B = uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sentImage decodes the media a read returned.
func sentImage(t *testing.T, m *Media) (image.Image, string) {
	t.Helper()
	if m == nil || m.Data == nil {
		t.Fatalf("no media data: %+v", m)
	}
	data, err := base64.StdEncoding.DecodeString(*m.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != m.Bytes {
		t.Errorf("media.bytes %d, data has %d", m.Bytes, len(data))
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != m.Width || img.Bounds().Dy() != m.Height || "image/"+format != m.MIME {
		t.Errorf("media says %s %dx%d, data is %s %v", m.MIME, m.Width, m.Height, format, img.Bounds())
	}
	return img, format
}

func TestReadImageAsItIs(t *testing.T) {
	env := testEnv(t)
	small := encodePNG(t, gradient(64, 32, false))
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, gradient(20, 10, false), nil); err != nil {
		t.Fatal(err)
	}
	webp, err := os.ReadFile("testdata/blue-purple-pink.lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, mime string
		data       []byte
	}{
		{"small.png", "image/png", small},
		{"photo.jpg", "image/jpeg", encodeJPEG(t, gradient(40, 30, false))},
		{"anim.gif", "image/gif", gifBuf.Bytes()},
		{"pic.webp", "image/webp", webp},
		{"no-extension", "image/png", small},
	}
	for _, c := range cases {
		write(t, env, c.name, c.data)
		resp, res := mustRead(t, env, Params{Path: c.name, IncludeData: true})
		m := res.Media
		if res.Kind != KindImage || m == nil || m.MIME != c.mime || m.Resized || m.Bytes != len(c.data) {
			t.Errorf("%s: kind %s media %+v", c.name, res.Kind, m)
			continue
		}
		if got, _ := base64.StdEncoding.DecodeString(*m.Data); !bytes.Equal(got, c.data) {
			t.Errorf("%s: an image within the limits is not sent byte for byte", c.name)
		}
		if m.Original.Width == 0 || m.Original.Width != m.Width || m.Original.Bytes != int64(len(c.data)) || *res.SHA256 != sha256Hex(c.data) {
			t.Errorf("%s: original %+v", c.name, m.Original)
		}
		if !strings.Contains(resp.Output, "not resized") {
			t.Errorf("%s: output %q", c.name, resp.Output)
		}
	}
}

func TestReadImageDownscaled(t *testing.T) {
	env := testEnv(t)
	write(t, env, "wide.png", encodePNG(t, gradient(2400, 300, false)))
	resp, res := mustRead(t, env, Params{Path: "wide.png", IncludeData: true})
	m := res.Media
	_, format := sentImage(t, m)
	if !m.Resized || m.Width != 2000 || m.Height != 250 || format != "png" {
		t.Errorf("wide.png sent as %s %dx%d", format, m.Width, m.Height)
	}
	if m.Original.Width != 2400 || m.Original.Height != 300 {
		t.Errorf("original %+v", m.Original)
	}
	if !strings.Contains(resp.Output, "original 2400×300 → sent 2000×250 image/png") {
		t.Errorf("output %q", resp.Output)
	}

	write(t, env, "tall.jpg", encodeJPEG(t, gradient(500, 2200, false)))
	_, res = mustRead(t, env, Params{Path: "tall.jpg", IncludeData: true})
	if _, format := sentImage(t, res.Media); format != "jpeg" || res.Media.Width != 454 || res.Media.Height != 2000 {
		t.Errorf("tall.jpg sent as %s %dx%d", format, res.Media.Width, res.Media.Height)
	}
}

// A small base64 budget makes read fall back to JPEG, lower qualities and
// smaller sizes until the image fits.
func TestReadImageFitsBase64Budget(t *testing.T) {
	env := testEnv(t)
	env.Config.Read.MaxImageBase64KiB = 8
	write(t, env, "noise.png", encodePNG(t, gradient(300, 300, true)))
	_, res := mustRead(t, env, Params{Path: "noise.png", IncludeData: true})
	m := res.Media
	_, format := sentImage(t, m)
	if len(*m.Data) > 8*1024 || !m.Resized || format != "jpeg" || m.Width >= 300 {
		t.Errorf("sent %s %dx%d with %d bytes of base64, budget 8 KiB", format, m.Width, m.Height, len(*m.Data))
	}

	env = testEnv(t)
	env.Config.Read.MaxImageWidth, env.Config.Read.MaxImageHeight = 10, 10
	webp, _ := os.ReadFile("testdata/blue-purple-pink.lossy.webp")
	write(t, env, "pic.webp", webp)
	_, res = mustRead(t, env, Params{Path: "pic.webp", IncludeData: true})
	if _, format := sentImage(t, res.Media); format != "jpeg" || res.Media.Width > 10 || res.Media.Height > 10 {
		t.Errorf("webp sent as %s %dx%d", format, res.Media.Width, res.Media.Height)
	}
}

func TestReadImageWithoutImageCapability(t *testing.T) {
	env := testEnv(t)
	env.Config.Models.Capabilities = map[string]bool{"images": false}
	write(t, env, "a.png", encodePNG(t, gradient(8, 8, false)))
	resp, res := mustRead(t, env, Params{Path: "a.png", Pages: "1", Offset: 2})
	if res.Media == nil || res.Media.Data != nil || res.Media.Width != 8 || !hasNote(res, "capabilities.images is off") {
		t.Errorf("media %+v notes %v", res.Media, res.Notes)
	}
	if !hasNote(res, "pages applies to PDF files only") || !hasNote(res, "offset and limit apply") {
		t.Errorf("ignored parameters not noted: %v", res.Notes)
	}
	if !strings.Contains(resp.Output, "metadata only") {
		t.Errorf("output %q", resp.Output)
	}
}

func TestReadImageBroken(t *testing.T) {
	env := testEnv(t)
	good := encodePNG(t, gradient(50, 50, false))
	write(t, env, "cut.png", good[:len(good)/2])
	te := readErr(t, env, Params{Path: "cut.png"}, tool.CodeCorruptFile)
	if !strings.Contains(te.Message, "PNG image") {
		t.Errorf("message %q", te.Message)
	}
	// A header that claims a huge image is refused before decoding.
	write(t, env, "bomb.png", withPNGSize(good, 100_000, 100_000))
	te = readErr(t, env, Params{Path: "bomb.png"}, tool.CodeTooLarge)
	if !strings.Contains(te.Message, "100000×100000") {
		t.Errorf("message %q", te.Message)
	}
}

// withPNGSize rewrites the IHDR width and height of a PNG (and its CRC).
func withPNGSize(data []byte, w, h uint32) []byte {
	out := bytes.Clone(data)
	ihdr := out[8:] // length(4) "IHDR"(4) data(13) crc(4)
	binary.BigEndian.PutUint32(ihdr[8:], w)
	binary.BigEndian.PutUint32(ihdr[12:], h)
	binary.BigEndian.PutUint32(ihdr[21:], crc32.ChecksumIEEE(ihdr[4:21]))
	return out
}

// Without include_data the JSON leaves the base64 out, and says how to
// get it; the response still carries the image for an MCP client.
func TestReadImageDataOnlyWhenAsked(t *testing.T) {
	env := testEnv(t)
	small := encodePNG(t, gradient(64, 32, false))
	write(t, env, "small.png", small)
	resp, res := mustRead(t, env, Params{Path: "small.png"})
	if res.Media == nil || res.Media.Data != nil {
		t.Fatalf("media %+v: want no data", res.Media)
	}
	if !strings.Contains(resp.Output, "--include-data") || !strings.Contains(resp.Output, "64×32") {
		t.Errorf("output %q does not say how to get the data", resp.Output)
	}
	if len(resp.Media) != 1 {
		t.Fatalf("response media %+v", resp.Media)
	}
	if got, _ := base64.StdEncoding.DecodeString(resp.Media[0].Data); !bytes.Equal(got, small) {
		t.Errorf("the image content is not the image")
	}
}
