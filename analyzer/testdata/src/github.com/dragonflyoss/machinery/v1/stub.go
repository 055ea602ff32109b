// Package machinery is a stub of github.com/dragonflyoss/machinery@v1.10.14 (package machinery/v1, Dragonfly's fork of RichardKnop/machinery) for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package machinery

type Server struct {
}

func (server *Server) NewWorker(consumerTag string, concurrency int) *Worker { return nil }

func (server *Server) RegisterTasks(namedTaskFuncs map[string]interface{}) error { return nil }

func (server *Server) RegisterTask(name string, taskFunc interface{}) error { return nil }

func (server *Server) IsTaskRegistered(name string) bool { return false }

type Worker struct {
}

func (worker *Worker) Launch() error { return nil }
