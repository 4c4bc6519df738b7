package artifact

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"

	"github.com/mcode-dev/mcode/pkg/fsutil"

	"github.com/mcode-dev/mcode/pkg/tool"
)

// Algorithms are the hash algorithms an integrity string may name,
// weakest first. sha1 (npm's oldest packages) is refused: it no longer
// proves that a file is the one that was pinned.
var Algorithms = []string{"sha256", "sha384", "sha512"}

// Digest is one expected hash.
type Digest struct {
	Algo string
	Sum  []byte
	// hex says the digest was written ALGO:HEX, so messages write it so.
	hex bool
}

// String is the digest in the form it was written.
func (d Digest) String() string {
	if d.hex {
		return d.Hex()
	}
	return d.SRI()
}

// SRI is the digest in Subresource Integrity form (sha512-BASE64), as npm
// writes it.
func (d Digest) SRI() string { return d.Algo + "-" + base64.StdEncoding.EncodeToString(d.Sum) }

// Hex is the digest as ALGO:HEX.
func (d Digest) Hex() string { return d.Algo + ":" + hex.EncodeToString(d.Sum) }

// Integrity is a set of acceptable digests: a file matches when any one of
// them does (npm's rule for several space-separated SRI hashes).
type Integrity []Digest

// String is the integrity in the form it was most likely given: SRI.
func (in Integrity) String() string {
	s := make([]string, len(in))
	for i, d := range in {
		s[i] = d.String()
	}
	return strings.Join(s, " ")
}

// Algos are the distinct algorithms named, in Algorithms order.
func (in Integrity) Algos() []string {
	var out []string
	for _, a := range Algorithms {
		if slices.ContainsFunc(in, func(d Digest) bool { return d.Algo == a }) {
			out = append(out, a)
		}
	}
	return out
}

// Strongest is the digest of the strongest algorithm named (the first
// given of it): the cache is keyed by it.
func (in Integrity) Strongest() Digest {
	best := in[0]
	for _, d := range in[1:] {
		if slices.Index(Algorithms, d.Algo) > slices.Index(Algorithms, best.Algo) {
			best = d
		}
	}
	return best
}

// ParseIntegrity reads SRI hashes (sha512-BASE64, several separated by
// spaces) and ALGO:HEX hashes. SRI options (?opt) are ignored, as the SRI
// specification says.
func ParseIntegrity(s string) (Integrity, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, integrityError(s, "it is empty")
	}
	var in Integrity
	for _, f := range fields {
		d, err := parseDigest(f)
		if err != nil {
			return nil, integrityError(s, err.Error())
		}
		in = append(in, d)
	}
	return in, nil
}

func parseDigest(f string) (Digest, error) {
	if algo, hexSum, ok := strings.Cut(f, ":"); ok {
		algo = strings.ToLower(algo)
		sum, err := hex.DecodeString(hexSum)
		if err != nil {
			return Digest{}, fmt.Errorf("%q is not hexadecimal", hexSum)
		}
		return checkDigest(Digest{Algo: algo, Sum: sum, hex: true})
	}
	algo, b64, ok := strings.Cut(f, "-")
	if !ok {
		return Digest{}, fmt.Errorf("%q is neither ALGO-BASE64 nor ALGO:HEX", f)
	}
	b64, _, _ = strings.Cut(b64, "?")
	sum, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		if sum, err = base64.RawStdEncoding.DecodeString(b64); err != nil {
			return Digest{}, fmt.Errorf("%q is not base64", b64)
		}
	}
	return checkDigest(Digest{Algo: strings.ToLower(algo), Sum: sum})
}

func checkDigest(d Digest) (Digest, error) {
	if d.Algo == "sha1" || d.Algo == "md5" {
		return Digest{}, fmt.Errorf("%s is too weak to pin a file (it can be forged); use sha256, sha384 or sha512", d.Algo)
	}
	if !slices.Contains(Algorithms, d.Algo) {
		return Digest{}, fmt.Errorf("unknown algorithm %q (known: %s)", d.Algo, strings.Join(Algorithms, ", "))
	}
	if want := newHash(d.Algo).Size(); len(d.Sum) != want {
		return Digest{}, fmt.Errorf("a %s digest has %d bytes, this one %d", d.Algo, want, len(d.Sum))
	}
	return d, nil
}

func integrityError(s, why string) *tool.Error {
	return &tool.Error{Code: tool.CodeUsage,
		Message: fmt.Sprintf("integrity %q: %s", s, why),
		Hint:    "write sha512-BASE64 (npm view NAME@VERSION dist.integrity prints it) or sha256:HEX (sha256sum FILE)"}
}

func newHash(algo string) hash.Hash {
	switch algo {
	case "sha256":
		return sha256.New()
	case "sha384":
		return sha512.New384()
	default:
		return sha512.New()
	}
}

// Hasher computes every algorithm an integrity names, in one pass.
type Hasher struct {
	in     Integrity
	algos  []string
	hashes []hash.Hash
	n      int64
}

// NewHasher hashes for in; with in nil it hashes nothing but counts.
func NewHasher(in Integrity) *Hasher {
	h := &Hasher{in: in, algos: in.Algos()}
	for _, a := range h.algos {
		h.hashes = append(h.hashes, newHash(a))
	}
	return h
}

func (h *Hasher) Write(p []byte) (int, error) {
	for _, x := range h.hashes {
		x.Write(p)
	}
	h.n += int64(len(p))
	return len(p), nil
}

// Size is the number of bytes hashed.
func (h *Hasher) Size() int64 { return h.n }

// Reset starts over (a download that restarts from its first byte).
func (h *Hasher) Reset() {
	for _, x := range h.hashes {
		x.Reset()
	}
	h.n = 0
}

// Sums are the digests computed, one per algorithm.
func (h *Hasher) Sums() []Digest {
	out := make([]Digest, len(h.hashes))
	for i, x := range h.hashes {
		out[i] = Digest{Algo: h.algos[i], Sum: x.Sum(nil)}
	}
	return out
}

// Match returns the expected digest that matched, or a checksum_mismatch
// error naming what the file is and what was expected. what names the
// file in the message.
func (h *Hasher) Match(what string) (Digest, error) {
	sums := h.Sums()
	for _, want := range h.in {
		for _, got := range sums {
			if got.Algo == want.Algo && subtle.ConstantTimeCompare(got.Sum, want.Sum) == 1 {
				return want, nil
			}
		}
	}
	got := make([]string, len(sums))
	for i, s := range sums {
		s.hex = slices.ContainsFunc(h.in, func(d Digest) bool { return d.Algo == s.Algo && d.hex })
		got[i] = s.String()
	}
	return Digest{}, &tool.Error{Code: tool.CodeChecksumMismatch,
		Message: fmt.Sprintf("%s (%d bytes) has %s, expected %s", what, h.n, strings.Join(got, " "), h.in),
		Hint:    "the file is not the one that was pinned: fetch it again from the pinned source, or, if the pin itself is out of date, update it from a trusted source (npm view NAME@VERSION dist.integrity)"}
}

// verifyAt is VerifyFile of a path the caller named as display.
func verifyAt(display, path string, in Integrity) (Digest, int64, error) {
	f, _, err := fsutil.OpenRegular(display, path)
	if err != nil {
		return Digest{}, 0, err
	}
	defer f.Close()
	return verifyOpen(f, path, in)
}

// VerifyFile streams path through the hashes of in.
func VerifyFile(path string, in Integrity) (Digest, int64, error) {
	f, _, err := fsutil.OpenRegular(path, path)
	if err != nil {
		return Digest{}, 0, err
	}
	defer f.Close()
	return verifyOpen(f, path, in)
}

func verifyOpen(f io.Reader, path string, in Integrity) (Digest, int64, error) {
	h := NewHasher(in)
	if _, err := io.Copy(h, f); err != nil {
		return Digest{}, h.Size(), err
	}
	d, err := h.Match(path)
	return d, h.Size(), err
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
