"""German."""

STRINGS = {
    # launcher and header
    "launcher": "Die Doku fragen",
    "launcher_title": "Die Doku fragen ({keys})",
    "key_ctrl": "Strg",
    "ask_about_this": "Dazu fragen",
    "panel": "Doku-Assistent",
    "heading": "Die Doku fragen",
    "history": "Gesprächsverlauf",
    "new_chat": "Neues Gespräch",
    "settings": "Einstellungen",
    "close": "Schließen",
    # start-up
    "loading": "Assistent wird geladen",
    "start_failed": "Der Assistent konnte nicht starten. Laden Sie die Seite neu,"
    " um es noch einmal zu versuchen.",
    "csp_blocked": "Die Content Security Policy dieser Website blockiert den Assistenten."
    " Die Website muss {missing} erlauben. Insgesamt braucht der Assistent: {needs}.",
    "docs_changed": "Die Doku hat sich seit diesem Gespräch geändert."
    " Manche Links funktionieren eventuell nicht mehr.",
    # the thread
    "empty_title": "Fragen Sie diese Doku",
    "empty_body": "Antworten verlinken die Abschnitte, aus denen sie stammen.",
    "pending": "Ihre Frage ist als Nächstes dran.",
    "pending_loading": "Der Assistent wird geladen; Ihre Frage ist als Nächstes dran.",
    "asked_in": "In {scope}",
    "reasoning": "Gedankengang",
    "answer_done": "Antwort vollständig.",
    "stopped": "Angehalten",
    "ask_again": "Erneut fragen",
    "sources": "Quellen",
    "results": "Suchergebnisse",
    "results_intro": "Die passendsten Abschnitte der Doku:",
    "no_results": "Kein Abschnitt der Doku passt dazu. Versuchen Sie andere Wörter.",
    "model_failed": "Der Assistent konnte gerade nicht antworten;"
    " hier sind die passendsten Abschnitte.",
    "search_failed": "Bei der Suche ist etwas schiefgegangen. Bitte versuchen Sie es erneut.",
    "throttled_in": "Gerade zu viele Fragen. Versuchen Sie es in {n} s erneut.",
    "throttled_soon": "Gerade zu viele Fragen. Versuchen Sie es gleich noch einmal.",
    # votes
    "helpful": "Hilfreich",
    "not_helpful": "Nicht hilfreich",
    "reasons": "Gründe",
    "reason_wrong": "Falsch",
    "reason_outdated": "Veraltet",
    "reason_not_asked": "Nicht meine Frage",
    "reason_missing_source": "Quelle fehlt",
    "reason_hard_to_read": "Schwer verständlich",
    "what_was_wrong": "Was war falsch?",
    "what_was_wrong_placeholder": "Was war falsch? (optional)",
    "send_feedback": "Feedback senden",
    "feedback_thanks": "Danke, Ihr Feedback wurde gespeichert.",
    # the composer
    "question": "Eine Frage stellen",
    "question_placeholder": "Stellen Sie eine Frage…",
    "send": "Senden",
    "stop": "Stopp",
    "scope": "Suchen in",
    "fineprint": "Antworten stützen sich nur auf diese Doku.",
    "remove_quote": "Zitat entfernen",
    # settings
    "instruction": "Anweisung für Antworten",
    "instruction_placeholder": "z. B. auf Englisch antworten, mit kurzen Codebeispielen",
    "instruction_note": "Gilt ab Ihrer nächsten Frage; nur in diesem Tab gespeichert.",
    # consent (history.consent: "ask")
    "consent_note": "Unterhaltungen bleiben nur im Speicher dieser"
    " Seite, bis Sie sie behalten möchten.",
    "consent_keep": "Meine Unterhaltungen auf diesem Gerät behalten",
    "consent_later": "Nicht jetzt",
    "consent_setting_note": "Abwählen löscht die auf diesem Gerät behaltenen Unterhaltungen.",
    # the history list
    "conversations": "Gespräche",
    "no_conversations": "Noch keine Gespräche.",
    "delete_conversation": "Gespräch löschen",
    "delete_all": "Alle löschen",
    "confirm_delete_all": "Löschen aller bestätigen",
    "cancel": "Abbrechen",
    # copying answers and code
    "copy_answer": "Antwort kopieren",
    "copy_code": "Code kopieren",
    "copied": "Kopiert",
    "copy_failed": "Kopieren nicht möglich",
    # searching, exporting and importing conversations
    "search_conversations": "Unterhaltungen durchsuchen",
    "no_matches": "Keine Unterhaltung passt",
    "export": "Exportieren",
    "export_all": "Alle exportieren",
    "import": "Importieren",
    "imported": "Importierte Unterhaltungen: {n}",
    "import_other_site": "Diese Datei stammt von einer anderen"
    " Website, daher wurde nichts importiert.",
    "import_newer": "Diese Datei stammt von einer neueren Version"
    " des Assistenten, daher wurde nichts importiert.",
    "import_damaged": "Diese Datei ist kein Export von Unterhaltungen"
    " oder beschädigt, daher wurde nichts importiert.",
    # a private conversation
    "private": "Private Unterhaltung",
    "private_marker": "Privat",
    "private_note": "Wird nicht auf diesem Gerät gespeichert;"
    " weg, sobald Sie diesen Tab schließen.",
}
