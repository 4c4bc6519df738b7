// Package osdirs says where mcode keeps its data on each platform, as pure
// functions of the platform, the environment and the home folder, so that
// every platform's answer is tested on any.
package osdirs

import (
	"path"
	"strings"
)

// AppName names mcode's own folders.
const AppName = "mcode"

// DataHome is mcode's data folder (MCODE_HOME when it is unset):
//
//   - $MCODE_HOME when set;
//   - on Windows %LOCALAPPDATA%\mcode (home\AppData\Local\mcode without it);
//   - elsewhere $XDG_DATA_HOME/mcode when XDG_DATA_HOME is set (a relative
//     one is taken from the current folder, as mcode always has);
//   - on macOS ~/Library/Application Support/mcode;
//   - elsewhere ~/.local/share/mcode.
//
// It may be relative (a relative MCODE_HOME): the caller makes it absolute.
func DataHome(goos string, getenv func(string) string, home string) string {
	if h := getenv("MCODE_HOME"); h != "" {
		return h
	}
	if goos == "windows" {
		if l := getenv("LOCALAPPDATA"); l != "" {
			return WinJoin(l, AppName)
		}
		return WinJoin(home, "AppData", "Local", AppName)
	}
	if x := getenv("XDG_DATA_HOME"); x != "" {
		return path.Join(x, AppName)
	}
	if goos == "darwin" || goos == "ios" {
		return path.Join(home, "Library", "Application Support", AppName)
	}
	return path.Join(home, ".local", "share", AppName)
}

// WinJoin joins Windows path elements with backslashes, on any platform.
func WinJoin(elem ...string) string {
	out := strings.TrimRight(elem[0], `\/`)
	for _, e := range elem[1:] {
		out += `\` + strings.Trim(e, `\/`)
	}
	return out
}
