package fsutil

import (
	"fmt"
	"strconv"
	"strings"
)

// HumanBytes writes a size the way people read it: 512 B, 1.5 KiB,
// 256.0 MiB, 3.0 GiB.
func HumanBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n) / 1024
	unit := 0
	for v >= 1024 && unit < len(sizeUnits)-1 {
		v /= 1024
		unit++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + sizeUnits[unit]
}

var sizeUnits = [...]string{"KiB", "MiB", "GiB", "TiB", "PiB"}

// ParseSize reads a byte count: 1048576, 512KiB, 100M, 1GiB, 2GB.
// K, M, G alone are binary (KiB, MiB, GiB); KB, MB, GB are decimal.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]int64{"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
		"t": 1 << 40, "tib": 1 << 40, "tb": 1e12}[unit]
	n, err := strconv.ParseFloat(num, 64)
	if mult == 0 || err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size (write e.g. 1048576, 512MiB or 1GiB)", s)
	}
	v := n * float64(mult)
	if v >= 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v), nil
}
