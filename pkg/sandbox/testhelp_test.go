package sandbox

import "github.com/mcode-dev/mcode/pkg/config"

func configFor(mode string, network ...string) config.Sandbox {
	return config.Sandbox{Mode: mode, Network: network}
}
