package trash

import (
	"bufio"
	"os"
	"strings"
)

// pseudoFS are file systems that never hold a user's trash; skipping them
// keeps a listing from touching /proc, /sys or an automounter.
var pseudoFS = map[string]bool{
	"proc": true, "sysfs": true, "devtmpfs": true, "devpts": true, "cgroup": true, "cgroup2": true,
	"mqueue": true, "debugfs": true, "tracefs": true, "securityfs": true, "pstore": true, "bpf": true,
	"autofs": true, "fusectl": true, "configfs": true, "hugetlbfs": true, "binfmt_misc": true, "nsfs": true,
	"rpc_pipefs": true, "efivarfs": true, "selinuxfs": true,
}

// systemMounts lists mount points from /proc/self/mounts.
func systemMounts() []string {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || pseudoFS[fields[2]] {
			continue
		}
		out = append(out, unescapeMount(fields[1]))
	}
	return out
}

// unescapeMount decodes the octal escapes (\040 for a space) of the
// mount table.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }
