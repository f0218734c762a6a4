package menu

import (
	"bytes"
	"strings"
	"testing"

	"charm.land/huh/v2"

	"github.com/strom-research/strom/messages"
)

// TestLibraryWords: huh's own sentences in an accessible form are said in the
// person's language, with their numbers and plurals; other writes pass unchanged.
func TestLibraryWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lang, in, want string }{
		{"de", "Enter a number between 1 and 5: ", "Eine Zahl von 1 bis 5 eingeben: "},
		{"cs", "Enter a number between 0 and 3: ", "Zadat číslo od 0 do 3: "},
		{"de", "Select up to 1 options.\n", "Bis zu 1 Möglichkeit wählen.\n"},
		{"cs", "Select up to 2 options.\n", "Vybrat nejvýš 2 možnosti.\n"},
		{"cs", "Select up to 5 options.\n", "Vybrat nejvýš 5 možností.\n"},
		{"de", "You can't select more than 3 options.\n", "Mehr als 3 Möglichkeiten lassen sich nicht wählen.\n"},
		{"de", "Invalid: must be a number between 1 and 3\n", "Ungültig: eine Zahl von 1 bis 3 eingeben\n"},
		{"cs", "Invalid: must be 1\n", "Neplatné: jde jen 1\n"},
		{"de", "There is only one option available; enter the number 1:", "Es gibt nur eine Möglichkeit; die Zahl 1 eingeben:"},
		{"en", "Enter a number between 1 and 5: ", "Enter a number between 1 and 5: "},
		{"de", "1. T-1 Kirchenbuch\n", "1. T-1 Kirchenbuch\n"},
	} {
		var buf bytes.Buffer
		w := libraryWords{w: &buf, p: messages.For(tc.lang)}
		n, err := w.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) {
			t.Errorf("Write(%q) = %d, %v", tc.in, n, err)
		}
		if buf.String() != tc.want {
			t.Errorf("%s: %q says %q, want %q", tc.lang, tc.in, buf.String(), tc.want)
		}
	}
}

// TestLibraryWordsOfHuh runs huh's own accessible select and multi-select with a
// number out of range: every sentence huh writes arrives in German, none in
// English (a huh whose words changed fails here).
func TestLibraryWordsOfHuh(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	out := libraryWords{w: &buf, p: messages.For("de")}
	var one string
	var some []string
	// Each form reads its own input: huh's line reader reads ahead.
	pick := huh.NewForm(huh.NewGroup(
		huh.NewSelect[string]().Title("Aufgabe").Options(huh.NewOptions("T-1", "T-2")...).Value(&one),
	)).WithAccessible(true).WithInput(strings.NewReader("7\n2\n")).WithOutput(out)
	if err := pick.Run(); err != nil {
		t.Fatal(err)
	}
	several := huh.NewForm(huh.NewGroup(
		huh.NewMultiSelect[string]().Title("Aufgaben").Options(huh.NewOptions("T-1", "T-2", "T-3")...).Value(&some),
	)).WithAccessible(true).WithInput(strings.NewReader("9\n3\n0\n")).WithOutput(out)
	if err := several.Run(); err != nil {
		t.Fatal(err)
	}
	if one != "T-2" || len(some) != 1 || some[0] != "T-3" {
		t.Fatalf("picked %q and %q", one, some)
	}
	text := buf.String()
	for _, want := range []string{"Eine Zahl von 1 bis 2 eingeben:", "Ungültig: eine Zahl von 1 bis 2 eingeben", "Bis zu 3 Möglichkeiten wählen.", "Eine Zahl von 0 bis 3 eingeben:", "Ungültig: eine Zahl von 0 bis 3 eingeben"} {
		if !strings.Contains(text, want) {
			t.Errorf("huh's accessible form lacks %q:\n%s", want, text)
		}
	}
	for _, english := range []string{"Enter a number", "Select up to", "Invalid:", "options"} {
		if strings.Contains(text, english) {
			t.Errorf("huh's accessible form still says %q:\n%s", english, text)
		}
	}
}
