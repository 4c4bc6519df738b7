//go:build !unix

package fsutil

import "os"

const openReadFlags = os.O_RDONLY
