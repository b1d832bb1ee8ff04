package htmlpage_test

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/htmlpage"
)

func TestRender(t *testing.T) {
	row := func(name, score string) htmlpage.Data {
		var d htmlpage.Data
		d.Set("name", name).Set("score", score)
		return d
	}
	var d htmlpage.Data
	d.Set("title", `A & B <i>`).SetList("rows", []htmlpage.Data{row("greedy", "0.1"), row(`<script>`, "")})
	var empty htmlpage.Data
	for _, tc := range []struct {
		name, src string
		data      htmlpage.Data
		want      string
	}{
		{"escaped value", "<h1>{{title}}</h1>", d, "<h1>A &amp; B &lt;i&gt;</h1>"},
		{"missing value", "[{{nothing}}]", d, "[]"},
		{"range", "{{range rows}}<td>{{name}}</td>{{end}}", d, "<td>greedy</td><td>&lt;script&gt;</td>"},
		{"outer name in a range", "{{range rows}}{{title}};{{end}}", d, "A &amp; B &lt;i&gt;;A &amp; B &lt;i&gt;;"},
		{"if on a value", "{{range rows}}{{if score}}({{score}}){{end}}{{end}}", d, "(0.1)"},
		{"if on a list", "{{if rows}}yes{{end}}{{if none}}no{{end}}", d, "yes"},
		{"empty data", "{{if rows}}x{{end}}{{range rows}}y{{end}}", empty, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := htmlpage.MustParse(tc.src).Render(tc.data); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"{{range rows}}", "without {{end}}"},
		{"{{end}}", "{{end}} without"},
		{"{{title", "{{ without }}"},
		{"{{with x}}{{end}}", "unknown action"},
		{"{{}}", "unknown action"},
	} {
		if _, err := htmlpage.Parse(tc.src); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.src, err, tc.want)
		}
	}
}
