// comment þ here
"t.a"() {s = "abÿ\"Ã", t = "été"} : () -> ()
