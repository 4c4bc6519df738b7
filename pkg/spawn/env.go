package spawn

import (
	"path"
	"slices"
	"strings"
)

// Modes of layer B of the environment scrub (bash.envSanitize).
const (
	EnvOff    = "off"
	EnvScrub  = "scrub"
	EnvStrict = "strict"
)

// authorityVars are mcode's own runtime handles (layer A, always removed):
// a nested mcode must not act with its parent's approval.
var authorityVars = []string{"MCODE_APPROVAL"}

// ScrubVars is layer B's exact denylist in scrub mode (docs/bash.md,
// "Environment"): model-provider keys, OTLP exporter headers, cloud
// credentials and the GitHub Actions OIDC request token. Each name is also
// removed with its INPUT_ prefix (a GitHub Actions input alias). GH_TOKEN,
// GITHUB_TOKEN and NPM_TOKEN stay on purpose: people and CI jobs rely on
// gh and npm working in the shell.
var ScrubVars = []string{
	// Model providers: mcode and its host re-read these themselves.
	"MCODE_PROVIDER_API_KEY",
	"ANTHROPIC_API_KEY",
	"ANTHROPIC_AUTH_TOKEN",
	"CLAUDE_CODE_OAUTH_TOKEN",
	"ANTHROPIC_FOUNDRY_API_KEY",
	"ANTHROPIC_CUSTOM_HEADERS",
	"OPENAI_API_KEY",
	// OpenTelemetry exporter headers carry collector credentials.
	"OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_LOGS_HEADERS",
	"OTEL_EXPORTER_OTLP_METRICS_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	// Cloud credentials.
	"AWS_SECRET_ACCESS_KEY",
	"AWS_SESSION_TOKEN",
	"AWS_BEARER_TOKEN_BEDROCK",
	"AZURE_CLIENT_SECRET",
	"AZURE_CLIENT_CERTIFICATE_PATH",
	"GOOGLE_APPLICATION_CREDENTIALS",
	// GitHub Actions: the token that mints OIDC identity tokens.
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN",
}

// inputPrefix is how GitHub Actions passes a step input as a variable.
const inputPrefix = "INPUT_"

// systemVars are never removed by strict mode, whatever they look like.
var systemVars = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM",
	"COLORTERM", "TZ", "TMPDIR", "PWD", "OLDPWD", "SHLVL", "HOSTNAME",
	"DISPLAY", "WAYLAND_DISPLAY", "MAIL", "_",
}

// systemPrefixes are families of system variables strict mode keeps.
var systemPrefixes = []string{"LC_", "XDG_"}

// credentialWords mark a name as a credential when they appear anywhere in
// it (strict mode).
var credentialWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "PRIVATE_KEY"}

// credentialSegments mark a name as a credential when they are a whole
// _-separated part of it: AWS_ACCESS_KEY_ID, NPM_CONFIG__AUTH,
// SSH_AUTH_SOCK, but not GIT_AUTHOR_NAME or KEYBOARD_LAYOUT.
var credentialSegments = []string{"KEY", "KEYS", "AUTH", "OAUTH", "COOKIE", "COOKIES", "PAT"}

// IsTruthy is how CI flags are read: 1, true, yes or on.
func IsTruthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// EnvMode resolves bash.envSanitize: an explicit mode wins; empty means
// scrub under CI (CI or GITHUB_ACTIONS truthy), else off.
func EnvMode(configured string, environ []string) string {
	if configured != "" {
		return configured
	}
	if IsTruthy(Lookup(environ, "CI")) || IsTruthy(Lookup(environ, "GITHUB_ACTIONS")) {
		return EnvScrub
	}
	return EnvOff
}

func Lookup(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// looksLikeCredential says whether strict mode removes a name.
func looksLikeCredential(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range credentialWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	for _, seg := range strings.Split(u, "_") {
		if slices.Contains(credentialSegments, seg) {
			return true
		}
	}
	return inScrubList(u)
}

func inScrubList(name string) bool {
	return slices.Contains(ScrubVars, strings.TrimPrefix(name, inputPrefix))
}

func isSystemVar(name string) bool {
	if slices.Contains(systemVars, name) {
		return true
	}
	for _, p := range systemPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// isAuthority says whether layer A removes a name: mcode's approval
// handles, and any other MCODE_ variable that holds a credential except
// those layer B decides on.
func isAuthority(name string) bool {
	if slices.Contains(authorityVars, name) {
		return true
	}
	return strings.HasPrefix(name, "MCODE_") && looksLikeCredential(name) && !inScrubList(name)
}

func allowed(name string, allow []string) bool {
	for _, pat := range allow {
		if ok, _ := path.Match(pat, name); ok || pat == name {
			return true
		}
	}
	return false
}

// Sanitize applies the environment policy to environ: layer A always
// (mcode's own authority), layer B by mode (off, scrub, strict). allow
// names the variables strict mode keeps (globs). removed lists the names
// taken out (never values), sorted.
func Sanitize(environ []string, mode string, allow []string) (env, removed []string) {
	env = make([]string, 0, len(environ))
	seen := map[string]bool{}
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		drop := isAuthority(name)
		switch mode {
		case EnvScrub:
			drop = drop || inScrubList(name)
		case EnvStrict:
			drop = drop || (looksLikeCredential(name) && !isSystemVar(name) && !allowed(name, allow))
		}
		if drop {
			if !seen[name] {
				removed = append(removed, name)
				seen[name] = true
			}
			continue
		}
		env = append(env, kv)
	}
	slices.Sort(removed)
	return env, removed
}
