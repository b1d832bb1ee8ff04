// Package sim is NormGym's deterministic simulation core.
//
// A visit (see ParseVisitID) is a practice day and a test day in one small
// community that follows a hidden norm. The newcomer — a human, a model or a
// baseline — acts through the Gymnasium-like Env (Reset, Step); members act
// after it each tick with a norm-aware planner, and members who witness a
// violation sanction the violator. Observations come as a typed struct
// (JSON-ready) and as a text form for language models.
//
// The package is pure: no I/O, no wall clock, no global randomness, no map
// iteration where order matters. All randomness comes from generators seeded
// by the visit id, so a visit id and an action sequence determine the whole
// trajectory and its hash on every host.
package sim
