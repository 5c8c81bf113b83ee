package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/substrate"
)

// liveFlags are the flags that send a run to a live Kafka (scenarios.Live): the same on the
// default run, run, sweep and replay. Credentials never come from a flag (a flag lands in the
// shell's history): SASL reads PARSLEY_KAFKA_SASL_USERNAME and PARSLEY_KAFKA_SASL_PASSWORD.
type liveFlags struct {
	substrate, brokers           string
	tlsCA, tlsCert, tlsKey, sasl string
	topicPrefix                  string
	compare                      bool
}

// wrapLive, when set, wraps every live substrate a command makes (tests plant wrong answers).
var wrapLive func(substrate.Substrate) substrate.Substrate

func (l *liveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.substrate, "substrate", scenarios.SubstrateModel, "the Kafka to run on: model, kfake (an embedded cluster) or kafka (--brokers)")
	fs.StringVar(&l.brokers, "brokers", "", "seed brokers of --substrate kafka, `host:port,...`")
	fs.StringVar(&l.tlsCA, "tls-ca", "", "CA certificate `FILE` (PEM) to verify the brokers; switches TLS on")
	fs.StringVar(&l.tlsCert, "tls-cert", "", "client certificate `FILE` (PEM), with --tls-key; switches TLS on")
	fs.StringVar(&l.tlsKey, "tls-key", "", "client key `FILE` (PEM), with --tls-cert")
	fs.StringVar(&l.sasl, "sasl-mechanism", "", "SASL `MECHANISM` (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512); credentials from PARSLEY_KAFKA_SASL_USERNAME and PARSLEY_KAFKA_SASL_PASSWORD")
	fs.StringVar(&l.topicPrefix, "topic-prefix", "", "prefix of every topic, group and transactional ID on the brokers (default: the seed and a random suffix, printed)")
	fs.BoolVar(&l.compare, "compare", false, "run the model beside the live substrate and report the first call, or process, on which they disagree")
}

// live turns the flags into a scenarios.Live; errors name the flag.
func (l *liveFlags) live() (scenarios.Live, error) {
	live := scenarios.Live{Substrate: l.substrate, Compare: l.compare, Wrap: wrapLive}
	if l.brokers != "" {
		live.Brokers = strings.Split(l.brokers, ",")
	}
	if err := live.Check(); err != nil {
		return live, err
	}
	if live.Substrate != scenarios.SubstrateKafka {
		if l.tlsCA != "" || l.tlsCert != "" || l.tlsKey != "" || l.sasl != "" || l.topicPrefix != "" {
			return live, errors.New("--tls-ca, --tls-cert, --tls-key, --sasl-mechanism and --topic-prefix are for --substrate kafka")
		}
		return live, nil
	}
	if l.tlsCA != "" || l.tlsCert != "" || l.tlsKey != "" {
		tls, err := substrate.TLSFromFiles(l.tlsCA, l.tlsCert, l.tlsKey)
		if err != nil {
			return live, fmt.Errorf("--tls-ca/--tls-cert/--tls-key: %w", err)
		}
		live.Kafka.TLS = tls
	}
	if l.sasl != "" {
		sasl, err := substrate.SASLFromEnv(l.sasl)
		if err != nil {
			return live, fmt.Errorf("--sasl-mechanism: %w", err)
		}
		live.Kafka.SASL = sasl
	}
	live.Kafka.TopicPrefix = l.topicPrefix
	live.Access = l.access()
	return live, nil
}

// access is how the flags reach the brokers (TLS files, SASL mechanism) as a command line repeats
// them, each value shell-quoted: never a credential, which no flag carries.
func (l *liveFlags) access() string {
	var s string
	for _, f := range []struct{ name, value string }{{"tls-ca", l.tlsCA}, {"tls-cert", l.tlsCert}, {"tls-key", l.tlsKey}, {"sasl-mechanism", l.sasl}} {
		if f.value != "" {
			s += " --" + f.name + " " + scenarios.ShellQuote(f.value)
		}
	}
	return s
}

// modelOnlyFlag declares --substrate on a command that runs on the model only (explore, shrink);
// modelOnly refuses anything else after the flags are parsed.
func modelOnlyFlag(fs *flag.FlagSet) *string {
	return fs.String("substrate", scenarios.SubstrateModel, "the Kafka to run on: only model (a live substrate cannot be cloned or rerun alike)")
}

// modelOnly says why a command that needs the model's own state refuses the substrate named
// (nil for the model).
func modelOnly(name, substrate, why string) error {
	if substrate == "" || substrate == scenarios.SubstrateModel {
		return nil
	}
	return fmt.Errorf("--substrate %s: %s runs on the model only (%s); run a seed on %s with 'simrun --seed N --substrate %s'", substrate, name, why, substrate, substrate)
}

// liveExit reports an error of a live run on stderr and returns its exit code: exitInterrupted
// for an interrupt, exitLive for a failure of the live substrate itself (neither is a finding
// about the model), exitUsage for anything else.
func liveExit(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	switch {
	case errors.Is(err, scenarios.ErrInterrupted):
		return exitInterrupted
	case errors.Is(err, scenarios.ErrLiveFailed):
		return exitLive
	}
	return exitUsage
}

// interruptedPanic, deferred around a live run, turns a panic of a run interrupted under it (its
// clients closed by the Ctrl-C handler) into scenarios.ErrInterrupted in *err, and one of an
// uncompared run that lost its connection into an error wrapping scenarios.ErrLiveFailed
// (LiveRun.Stopped); any other panic goes on.
func interruptedPanic(lr *scenarios.LiveRun, err *error) {
	if r := recover(); r != nil {
		stopped := lr.Stopped()
		if stopped == nil {
			panic(r)
		}
		*err = stopped
	}
}

// cleanupOnSignal cleans lr up and exits with the interrupted code on SIGINT or SIGTERM, so a
// run stopped by Ctrl-C leaves no topics behind on the brokers. The returned function stops
// watching.
func cleanupOnSignal(lr *scenarios.LiveRun, stderr io.Writer) (stop func()) {
	if lr == nil {
		return func() {}
	}
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(stderr, "simrun: %v: deleting the run's topics\n", s)
			if err := lr.Cleanup(); err != nil {
				fmt.Fprintf(stderr, "simrun: %v\n", err)
			}
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}
