// Package scopes is the explorer's small-scope catalogue: named scenarios small enough that
// `simrun explore` visits every schedule and fault choice of them. It has two families: the
// shaped scopes (scopes.go, session.go), each built to expose the sabotage modes it claims, and
// the general family (general.go), every small wiring under every fault kind, shaped for
// nothing. A Scope is a topology plus a budget of messages, faults and session actions; its
// Options are the explorer's settings for it.
package scopes
