"""The thesaurus (ctxtool.english.thesaurus): English words of one meaning and their opposites, built from a
WordNet 3.0 dict folder (a small one of our own here) and shipped with ctxtool."""

from __future__ import annotations

from pathlib import Path

from ctxtool.english import thesaurus

LICENCE = """  1 This software and database is provided under the following licence.
  2 Our own four-synset fixture, in WordNet 3.0's format.
"""
# offset lex_filenum ss_type w_cnt (word lex_id)... p_cnt (symbol offset pos source/target)... | gloss
FILES = {
    "noun": [
        "00000010 05 n 02 film 0 movie 0 000 | a motion picture",
        "00000011 18 n 01 adviser 0 001 + 00000030 v 0101 | one who advises",
        "00000012 18 n 01 man 0 001 ! 00000013 n 0101 | a male person",
        "00000013 18 n 01 woman 0 001 ! 00000012 n 0101 | a female person",
    ],
    "verb": ["00000030 32 v 01 advise 0 001 + 00000011 n 0101 | give advice"],
    "adj": [
        "00000040 00 a 01 expensive 0 002 & 00000041 a 0000 ! 00000042 a 0101 | high in price",
        "00000041 00 s 02 pricey 0 pricy 0 001 & 00000040 a 0000 | costly",
        "00000042 00 a 01 cheap 0 001 ! 00000040 a 0101 | low in price",
    ],
    "adv": [],
}


def _dict_folder(tmp_path: Path) -> Path:
    for pos, lines in FILES.items():
        (tmp_path / f"data.{pos}").write_text(LICENCE + "".join(line + "  \n" for line in lines))
    return tmp_path


def test_built_from_a_wordnet_folder(tmp_path):
    text = thesaurus.build(_dict_folder(tmp_path))
    assert text.startswith("# ctxtool thesaurus") and "Our own four-synset fixture" in text
    words = thesaurus.Table(text)
    assert words.get("film")["s"] == {"movie"} and words.get("cinema") == {}
    assert words.get("pricy")["s"] == {"pricey"} and words.get("pricy")["a"] == {"expensive"}
    assert words.get("advise")["d"] == {"adviser"} and words.get("man")["x"] == {"woman"}


def test_related_words_in_any_of_their_forms(tmp_path):
    words = thesaurus.Table(thesaurus.build(_dict_folder(tmp_path)))
    assert thesaurus.related_in(words, "films", "movie")  # a synonym, in the plural
    assert thesaurus.related_in(words, "pricy", "expensive") and thesaurus.related_in(
        words, "expensive", "pricy"
    )
    assert thesaurus.related_in(words, "advises", "adviser")  # a derivation, either way round
    assert not thesaurus.related_in(words, "advises", "adviser", kinds="s")  # not a synonym
    assert not thesaurus.related_in(words, "expensive", "cheap")  # antonyms
    assert not thesaurus.related_in(words, "men", "women")
    assert not thesaurus.related_in(words, "film", "films")  # one word, not two related ones
    assert not thesaurus.related_in(words, "film", "advise")


def test_the_shipped_table_knows_general_english():
    assert thesaurus.DATA.is_file() and (thesaurus.DATA.parent / "LICENSE").is_file()
    assert thesaurus.related("pricy", "expensive") and thesaurus.related("movies", "films")
    assert thesaurus.related("worst", "lowest") and thesaurus.related("advises", "advisor")
    assert not thesaurus.related("male", "female") and not thesaurus.related("buy", "sell")
    assert not thesaurus.related("employees", "students")


def test_the_command_says_what_to_do_without_wordnet(tmp_path, capsys):
    assert thesaurus.main([str(tmp_path)]) == 2
    assert "apt-get install wordnet-base" in capsys.readouterr().err
