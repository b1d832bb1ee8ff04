package ui

// DataMode is where a mode sends what the player does: the one story
// about data that the footer, the consent screen and the result screen
// all tell, in the same words (issue 13, item 5).
type DataMode string

// The data modes. A sealed mode (the server steps the visit) will be
// added beside them.
const (
	// DataLocal: the page alone (a static host, or Watch mode anywhere).
	DataLocal DataMode = "local"
	// DataSite: Play on the NormGym site outside classrooms: a sealed
	// visit, stepped by the server.
	DataSite DataMode = "site"
	// DataClassroom: Play on the site in a classroom (#room=CODE).
	DataClassroom DataMode = "classroom"
	// DataModel: Model mode, which calls the endpoint the user names.
	DataModel DataMode = "model"
)

// DataModeOf says which story holds for a mode of the app (ModePlay, …),
// whether it is served by the NormGym site, and in which room.
func DataModeOf(mode string, site bool, room string) DataMode {
	switch {
	case mode == ModeModel:
		return DataModel
	case mode == ModePlay && site && room != "", mode == ModeJoin && site:
		return DataClassroom
	case mode == ModePlay && site:
		return DataSite
	}
	return DataLocal
}

// Story is the sentence that says, for mode m, what is kept where and
// what is sent to whom.
func Story(m DataMode) string {
	switch m {
	case DataStudy:
		return studyStory
	case DataSite:
		return "A sealed visit: this site runs the community and sends this page only what you see, so the rule stays hidden until " +
			"the end. Each move goes to this site as you make it and is kept there, so a reload goes on where you were. When you " +
			"answer the last question, your run (the visit, your moves and answers, and a random pseudonym kept in this browser) is " +
			"stored for research. A visit you leave unfinished counts too: the data set says that your pseudonym was given that " +
			"visit and did not finish it, but not your moves."
	case DataClassroom:
		return "When you join, the nickname you choose goes to this site, for your teacher's screen. This site runs your class's " +
			"visit and sends this page only what you see: each move goes to it as you make it and is kept there, so a reload goes " +
			"on where you were. When you answer the last question, your run (the visit, your moves and answers, and a random " +
			"pseudonym kept in this browser) is stored for your class; your teacher sees the class's results and yours under your " +
			"nickname, never the pseudonym."
	case DataModel:
		return "Each step, this browser sends the model's prompt (the text observation) to the endpoint you entered, with your key " +
			"if you gave one; the key stays in this browser. Nothing is sent to NormGym; the record stays here until you download it."
	}
	return "Everything runs in this browser and nothing is sent anywhere. Your moves are kept in this browser so that a reload " +
		"resumes your visit; at the end you may download your record."
}

// StoryHTML is the story as a paragraph that tests and styles can find
// (class "story", data-story the mode).
func StoryHTML(m DataMode) string {
	return `<p class="story" data-story="` + string(m) + `">` + esc(Story(m)) + `</p>`
}
