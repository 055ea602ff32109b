package cli

import "runtime/debug"

// modulePath is the module idemgen belongs to.
const modulePath = "github.com/idemkit/idem"

// Version returns the version of the github.com/idemkit/idem module the
// running binary was built from: the main module's version when idemgen is
// built in its own module (go install …@v1.2.3, go run …@v1.2.3), or the
// version of the dependency when it is a tool of another module (go get
// -tool, go tool idemgen). It is "(devel)" for a build from a checkout,
// for a dependency replaced by a folder, and when the build information is
// missing.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return moduleVersion(info)
}

// moduleVersion finds the version of modulePath in info.
func moduleVersion(info *debug.BuildInfo) string {
	version := func(m *debug.Module) string {
		if m.Replace != nil {
			// A replacement by a folder has no version: a local build.
			m = m.Replace
		}
		if m.Version == "" {
			return "(devel)"
		}
		return m.Version
	}
	if info.Main.Path == modulePath {
		return version(&info.Main)
	}
	for _, d := range info.Deps {
		if d.Path == modulePath {
			return version(d)
		}
	}
	return "(devel)"
}
