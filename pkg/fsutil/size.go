package fsutil

import "strconv"

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
