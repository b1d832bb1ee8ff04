// Package sim is NormGym's deterministic simulation core.
//
// A visit (see ParseVisitID) is a practice day and a test day in one small
// community that follows a hidden norm. The newcomer — a human, a model or a
// baseline — acts through the Gymnasium-like Env, the one contract every
// host implements (Native here; the wasm module, the server's sessions,
// the browser and a server's clients elsewhere): Reset to a visit id, Step
// an action; members act after it each tick with a norm-aware planner, and
// members who witness a violation sanction the violator. Observations come
// as a typed struct (JSON-ready) and as a text form for language models.
// sim/simtest checks any Env against the native core on any visit with any
// policy; sim/agents holds the baselines.
//
// The package is pure: no I/O, no wall clock, no global randomness, no map
// iteration where order matters. All randomness comes from generators seeded
// by the visit id, so a visit id and an action sequence determine the whole
// trajectory and its hash on every host.
//
// The files follow the visit: contract.go (Env, Turn and their errors),
// native.go (Native, the core's Env), env.go (Visit, NewVisit and what it
// reports), day.go (days and errands), step.go (a tick), sanction.go (who
// sanctions whom), trace.go (the trajectory hash), observe.go (observations and
// their text), judge.go (what a norm means), plan.go and member.go (the
// members), layout.go and world.go (the place), score.go and record.go
// (results), visit.go and suite.go (visit ids and suites).
package sim
