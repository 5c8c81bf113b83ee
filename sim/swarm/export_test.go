package swarm

// SabotageRules exposes the eligibility rules to the external tests, which check them against the
// sabotage registry (package sim, which imports this one).
var SabotageRules = sabotageNeeds
