//go:build !unix

package read

import "os"

const openFlags = os.O_RDONLY
