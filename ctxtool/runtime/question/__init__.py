"""The question stage: a question read once, before anything is matched. Its slips of the keyboard
read as the set's words (:mod:`.spelling`), the literals it writes (numbers, dates, quoted strings:
:mod:`.literals`) and the stored values its phrases name (:mod:`.linking`)."""
