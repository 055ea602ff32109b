// Package reporter is a stub of github.com/ONSdigital/dp-reporter-client@v1.2.0 for analyzer tests: signatures mirror the real API.
package reporter

type ErrorReporter interface {
	Notify(id string, errContext string, err error) error
}
