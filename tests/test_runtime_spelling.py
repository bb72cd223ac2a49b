"""Spelling (ctxtool.runtime.question.spelling) and words said otherwise (the thesaurus in
ctxtool.runtime.matching.rewording): a question's slips read as the set's words, an English synonym of a
template's word explained. Our own small sets, no database."""

from __future__ import annotations

from ctxtool.runtime.question.spelling import Speller, edits1
from tests.rt_support import offline_runtime

WORDINGS = [
    "What is the name of the department with the most employees?",
    "What is the minimum salary of the employees?",
    "List the semester and year of the classes taught by each teacher.",
]


def test_one_slip_away():
    assert edits1("deparment", "department") and edits1("salaray", "salary") and edits1("naem", "name")
    assert not edits1("department", "departments!") and not edits1("salary", "salary")


def test_slips_are_read_as_the_sets_words():
    sp = Speller(WORDINGS)
    fixed, slips = sp.correct("Which deparment pays the mininum salaray? And the semeseter?")
    assert fixed == "Which department pays the minimum salary? And the semester?"
    assert slips == {
        "deparment": "department",
        "mininum": "minimum",
        "salaray": "salary",
        "semeseter": "semester",
    }
    assert sp.correct("the naems of teachers")[0] == "the names of teachers"  # a swap, in the plural
    # the apostrophes of "didn't" and "isn't" quote nothing: the words between them are read
    q = "which teacher didn't get the mininum salaray and isn't paid?"
    assert sp.correct(q)[0] == "which teacher didn't get the minimum salary and isn't paid?"
    # one slip from "counts" and from "accounts": people seldom slip on the first letter
    assert Speller(["How many accounts are there?", "the counts"]).correct("the acounts")[0] == "the accounts"


def test_what_is_not_a_slip_is_left_as_written():
    sp = Speller([*WORDINGS, "the colour of the car", "the color code"])
    for q in (
        'employees named "Deparment"',  # quoted: a value
        "employees of Deparment",  # capitalised: a name
        "employees in the departments",  # English, and the set's
        "employees who kayak",  # English, not the set's
        "the colr of the car",  # two neighbours (color, colour): no guess
        "the nane",  # a short word with a letter changed, not swapped
    ):
        assert sp.correct(q) == (q, {}), q


SET = {
    "templates": [
        {
            "nl_query": "What is the name of the department with the most employees?",
            "sql": "SELECT d.name FROM department AS d JOIN employee AS e ON e.dept_id = d.id "
            "GROUP BY d.name ORDER BY count(*) DESC LIMIT 1",
        },
        {"nl_query": "How many departments are there?", "sql": "SELECT count(*) FROM department"},
        {
            "nl_query": "What is the name of the most expensive product?",
            "sql": "SELECT name FROM product ORDER BY price DESC LIMIT 1",
        },
        {"nl_query": "How many products are there?", "sql": "SELECT count(*) FROM product"},
        {
            "nl_query": "What is the minimum salary of the employees?",
            "sql": "SELECT min(salary) FROM employee",
        },
        {
            "nl_query": "What is the maximum salary of the employees?",
            "sql": "SELECT max(salary) FROM employee",
        },
    ]
}


def test_a_misspelled_question_is_answered_and_says_what_it_read():
    rt = offline_runtime(SET)
    ans = rt.ask("What is the name of the deparment with the most employees?", action="showsql")
    assert ans.status == "answered" and ans.template.index == 0
    assert ans.question == "What is the name of the deparment with the most employees?"
    assert "read 'deparment' as 'department'" in ans.warnings
    # a misspelled operator word is that operator: the lowest salary, not the highest
    ans = rt.ask("What is the mininum salary of the employees?", action="showsql")
    assert ans.status == "answered" and ans.template.index == 4
    # understanding alone (a conversation deciding whether a question stands alone) reads it so too
    assert rt.understand("What is the mininum salary of the employees?")[1][0].template.index == 4


def test_an_english_synonym_says_the_templates_word():
    rt = offline_runtime(SET)
    ans = rt.ask("Tell me the name of the most pricy product.", action="showsql")
    assert ans.status == "answered" and ans.template.index == 2
    # an opposite is no synonym: "the cheapest" is not asked of the most expensive product
    assert rt.ask("Tell me the name of the most cheap product.", action="showsql").status != "answered"


def test_ctxtool_ask_says_what_it_read(tmp_path):
    import json

    from click.testing import CliRunner

    from ctxtool.cli import cli
    from ctxtool.parameterize import parameterize_set

    path = tmp_path / "set.json"
    path.write_text(json.dumps(parameterize_set(SET, "postgres", None)[0]))
    args = [
        "ask",
        "What is the mininum salary of the employees?",
        "--context",
        str(path),
        "--action",
        "showsql",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "SELECT min(salary) FROM employee" in result.stdout
    assert "warning: read 'mininum' as 'minimum'" in result.stderr
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert json.loads(result.stdout)["warnings"] == ["read 'mininum' as 'minimum'"]
