// Package sensitive is the one list of files that hold secrets (keys,
// credentials, tokens) and the matcher that recognises them. Search never
// lists or reads them, whatever glob the caller passes; the guard asks for
// approval before a tool touches them. docs/safety.md ("Sensitive files")
// documents the list; Rules is its single source.
package sensitive

import "strings"

// Kind says what part of a path a rule looks at.
type Kind int

const (
	// Name rules match the name of a file or folder at any depth.
	Name Kind = iota
	// Dir rules match a folder name at any depth: everything below it is
	// sensitive.
	Dir
)

// Rule is one entry of the list. Pattern is a name, a name with one
// leading or trailing '*', compared without regard to ASCII case (a
// case-insensitive file system would open ".ENV" as ".env").
type Rule struct {
	Pattern string
	Kind    Kind
	Why     string
}

// Rules is the list. Keep it short and certain: every entry hides files
// from search, so a false positive costs a model a file it needed.
var Rules = []Rule{
	{".env*", Name, "dotenv files: API keys, database passwords"},
	{"*.pem", Name, "PEM certificates and private keys"},
	{"*.key", Name, "private keys"},
	{"*.p12", Name, "PKCS#12 key stores"},
	{"*.pfx", Name, "PKCS#12 key stores"},
	{"*.jks", Name, "Java key stores"},
	{"*.keystore", Name, "Java and Android key stores"},
	{"*.ppk", Name, "PuTTY private keys"},
	{"*.kdbx", Name, "KeePass databases"},
	{"id_rsa*", Name, "SSH keys"},
	{"id_dsa*", Name, "SSH keys"},
	{"id_ecdsa*", Name, "SSH keys"},
	{"id_ed25519*", Name, "SSH keys"},
	{".netrc", Name, "machine passwords for ftp, curl, git"},
	{"_netrc", Name, "machine passwords (Windows name)"},
	{".npmrc", Name, "npm registry tokens"},
	{".pypirc", Name, "PyPI upload tokens"},
	{".pgpass", Name, "PostgreSQL passwords"},
	{".git-credentials", Name, "git's stored credentials"},
	{".htpasswd", Name, "web server password hashes"},
	{".dockercfg", Name, "Docker registry credentials"},
	{".vault-token", Name, "HashiCorp Vault token"},
	{".terraformrc", Name, "Terraform Cloud tokens"},
	{".ssh", Dir, "SSH keys and known hosts"},
	{".aws", Dir, "AWS credentials"},
	{".gnupg", Dir, "GnuPG private keys"},
	{".azure", Dir, "Azure credentials"},
	{".kube", Dir, "Kubernetes cluster credentials (kubeconfig)"},
}

// MatchName reports whether a single file or folder name is sensitive.
// isDir says whether it names a folder (Dir rules match only folders).
func MatchName(name string, isDir bool) bool {
	for i := range Rules {
		r := &Rules[i]
		if r.Kind == Dir && !isDir {
			continue
		}
		if matchPattern(r.Pattern, name) {
			return true
		}
	}
	return false
}

// MatchPath reports whether a slash-separated path is sensitive: any of
// its components matches a rule (a folder rule matches every component
// but the last, and the last too when isDir).
func MatchPath(p string, isDir bool) bool {
	for p != "" {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return MatchName(p, isDir)
		}
		if i > 0 && MatchName(p[:i], true) {
			return true
		}
		p = p[i+1:]
	}
	return false
}

func matchPattern(pattern, name string) bool {
	switch {
	case strings.HasPrefix(pattern, "*"):
		suffix := pattern[1:]
		return len(name) >= len(suffix) && strings.EqualFold(name[len(name)-len(suffix):], suffix)
	case strings.HasSuffix(pattern, "*"):
		prefix := pattern[:len(pattern)-1]
		return len(name) >= len(prefix) && strings.EqualFold(name[:len(prefix)], prefix)
	}
	return strings.EqualFold(name, pattern)
}

// Globs renders the list as gitignore-style exclusion globs ("!*.pem",
// "!.ssh/"), the form ripgrep's -g and similar tools take.
func Globs() []string {
	out := make([]string, 0, len(Rules))
	for _, r := range Rules {
		g := "!" + r.Pattern
		if r.Kind == Dir {
			g += "/"
		}
		out = append(out, g)
	}
	return out
}

// HomeSecrets are the files and folders under a home folder that hold
// credentials: the sandbox hides them from the commands it confines,
// where the kernel can express it (docs/sandbox.md). Each is a path
// relative to the home folder, slash-separated. ~/.npmrc is not on it:
// npm reads it on every run, and cannot run without it.
var HomeSecrets = []string{
	".ssh", ".aws", ".gnupg", ".azure", ".kube",
	".config/gh", ".config/gcloud", ".config/hub", ".config/op",
	".docker/config.json", ".netrc", ".git-credentials", ".pgpass",
	".vault-token", ".terraformrc", ".terraform.d/credentials.tfrc.json",
	".password-store", ".local/share/keyrings", ".pypirc",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
}

// SystemSecrets are the files of the system that hold credentials, by
// absolute path: readable by root only, and so by every command and tool
// of an agent that runs as root (CI, containers). For root, the sandbox
// hides those that exist as it hides HomeSecrets.
var SystemSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/security/opasswd", "/etc/master.passwd", "/etc/spwd.db",
	"/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key",
	"/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
}
