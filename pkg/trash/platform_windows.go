package trash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/mcode-dev/mcode/pkg/tool"
	"github.com/mcode-dev/mcode/pkg/winpath"
)

// platformCan makes c the Recycle Bin of this user: the system drive's
// $Recycle.Bin\SID first, then those of the other fixed drives.
func platformCan(c *Can, env *tool.Env) {
	sid, err := userSID()
	if err != nil {
		return // no Recycle Bin to name: the FreeDesktop trash it is
	}
	drive := os.Getenv("SystemDrive")
	if drive == "" {
		drive = "C:"
	}
	c.Layout = RecycleBin
	c.Home = winpath.RecycleBin(drive+`\`, sid)
	c.Mounts = fixedDrives
}

var userSID = sync.OnceValues(func() (string, error) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return user.User.Sid.String(), nil
})

// fixedDrives are the roots of the local fixed drives: removable and
// network drives have no Recycle Bin.
func fixedDrives() []string {
	mask, err := windows.GetLogicalDrives()
	if err != nil {
		return nil
	}
	var roots []string
	for i := 0; i < 26; i++ {
		if mask&(1<<i) == 0 {
			continue
		}
		root := string(rune('A'+i)) + `:\`
		p, err := windows.UTF16PtrFromString(root)
		if err == nil && windows.GetDriveType(p) == windows.DRIVE_FIXED {
			roots = append(roots, root)
		}
	}
	return roots
}

// shFileOpStruct is SHFILEOPSTRUCTW as 64-bit Windows lays it out (the
// only Windows targets built: amd64 and arm64).
type shFileOpStruct struct {
	hwnd                  uintptr
	wFunc                 uint32
	pFrom                 *uint16
	pTo                   *uint16
	fFlags                uint16
	fAnyOperationsAborted int32
	hNameMappings         uintptr
	lpszProgressTitle     *uint16
}

// SHFileOperationW's operation and flags (shellapi.h).
const (
	foDelete           = 0x3
	fofSilent          = 0x4
	fofNoConfirmation  = 0x10
	fofAllowUndo       = 0x40
	fofNoConfirmMkdir  = 0x200
	fofNoErrorUI       = 0x400
	fofNoUI            = fofSilent | fofNoConfirmation | fofNoErrorUI | fofNoConfirmMkdir
	shFileOpStructSize = 56
)

var shFileOperation = sync.OnceValue(func() *windows.LazyProc {
	return windows.NewLazySystemDLL("shell32.dll").NewProc("SHFileOperationW")
})

// putRecycleBin asks the shell to recycle path (with no dialog), then
// finds the record the shell wrote, which names the new entry. The shell
// deletes for good what it cannot recycle: a path on a share, or longer
// than MAX_PATH, is refused before it is asked.
func (c *Can) putRecycleBin(ctx context.Context, path string) (*Entry, error) {
	if unsafe.Sizeof(shFileOpStruct{}) != shFileOpStructSize {
		return nil, errors.New("the Recycle Bin is reached only from 64-bit Windows")
	}
	orig := winpath.Clean(path)
	if winpath.IsUNC(orig) {
		return nil, fmt.Errorf("%s is on a network share, which has no Recycle Bin (the shell would delete it for good): nothing was moved", orig)
	}
	if len(orig) >= winpath.MaxPath {
		return nil, fmt.Errorf("%s is longer than the %d characters the Recycle Bin takes: nothing was moved", orig, winpath.MaxPath-1)
	}
	info, err := os.Lstat(orig)
	if err != nil {
		return nil, err
	}
	bin := winpath.RecycleBin(orig, filepath.Base(c.Home))
	d := Dir{Path: bin, Top: winpath.Volume(orig) + `\`, Home: winpath.Equal(bin, c.Home), Layout: RecycleBin}
	from, err := windows.UTF16FromString(orig)
	if err != nil {
		return nil, err
	}
	from = append(from, 0) // a list of paths ends with an empty one
	op := shFileOpStruct{wFunc: foDelete, pFrom: &from[0], fFlags: fofAllowUndo | fofNoUI}
	start := c.Now()
	r, _, _ := shFileOperation().Call(uintptr(unsafe.Pointer(&op)))
	if r != 0 || op.fAnyOperationsAborted != 0 {
		return nil, fmt.Errorf("the shell could not recycle %s (SHFileOperation error %#x)", orig, r)
	}
	if _, err := os.Lstat(orig); err == nil {
		return nil, fmt.Errorf("the shell reported %s recycled, but it is still there", orig)
	}
	e, err := c.findRecycled(ctx, d, orig, start)
	if err != nil {
		return nil, err
	}
	return c.finishPut(ctx, e, info, nil)
}

// systemMounts are the fixed drives' roots.
func systemMounts() []string { return fixedDrives() }
