package report

// CSVCell returns s as a CSV cell that a spreadsheet shows as text and
// never evaluates: a cell that starts with '=', '+', '-', '@', a tab or a
// carriage return (what Excel, LibreOffice and Google Sheets read as the
// start of a formula) gets a leading apostrophe, as OWASP advises against
// CSV injection. A plain decimal number ("-1", "+2.5", "-3e-2") is left
// as it is: spreadsheets read it as a number, never as a formula.
//
// Every CSV that NormGym writes (report --format csv, the server's
// research export and a classroom's export) passes each cell through it.
func CSVCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if !plainNumber(s) {
			return "'" + s
		}
	}
	return s
}

// CSVRow applies CSVCell to every cell of row, in place, and returns row.
func CSVRow(row []string) []string {
	for i, c := range row {
		row[i] = CSVCell(c)
	}
	return row
}

// plainNumber reports whether s is [+-]digits[.digits][e[+-]digits], with
// at least one digit before the exponent.
func plainNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}
