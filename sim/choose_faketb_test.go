package sim

import "fmt"

// fakeTB is a rapid.TB that records failure instead of failing the enclosing test, so a test can
// check what rapid shrank a deliberately failing property to.
type fakeTB struct {
	failed bool
	logs   []string
}

func (f *fakeTB) Helper()                       {}
func (f *fakeTB) Name() string                  { return "fake" }
func (f *fakeTB) Logf(format string, a ...any)  { f.logs = append(f.logs, fmt.Sprintf(format, a...)) }
func (f *fakeTB) Log(a ...any)                  { f.logs = append(f.logs, fmt.Sprint(a...)) }
func (f *fakeTB) Skipf(format string, a ...any) {}
func (f *fakeTB) Skip(a ...any)                 {}
func (f *fakeTB) SkipNow()                      {}
func (f *fakeTB) Errorf(format string, a ...any) {
	f.failed = true
}
func (f *fakeTB) Error(a ...any)                 { f.failed = true }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed = true }
func (f *fakeTB) Fatal(a ...any)                 { f.failed = true }
func (f *fakeTB) FailNow()                       { f.failed = true }
func (f *fakeTB) Fail()                          { f.failed = true }
func (f *fakeTB) Failed() bool                   { return f.failed }
