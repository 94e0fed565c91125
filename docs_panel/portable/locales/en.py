"""English: the reference table (the English column of docs/contract.md §3)."""

STRINGS = {
    # launcher and header
    "launcher": "Ask the docs",
    "launcher_title": "Ask the docs ({keys})",
    "key_ctrl": "Ctrl",
    "ask_about_this": "Ask about this",
    "panel": "Docs assistant",
    "heading": "Ask the docs",
    "history": "Conversation history",
    "new_chat": "New chat",
    "settings": "Settings",
    "close": "Close",
    # start-up
    "loading": "Loading the assistant",
    "start_failed": "The assistant could not start. Reload the page to try again.",
    "csp_blocked": "This site's Content Security Policy blocks the assistant."
    " The site needs to allow {missing}. In all, the assistant needs: {needs}.",
    "docs_changed": "The docs have changed since this conversation. Some links may no longer work.",
    # the thread
    "empty_title": "Ask about these docs",
    "empty_body": "Answers link to the sections they come from.",
    "pending": "Your question is next.",
    "pending_loading": "The assistant is loading; your question is next.",
    "asked_in": "In {scope}",
    "reasoning": "Reasoning",
    "answer_done": "Answer complete.",
    "stopped": "Stopped",
    "ask_again": "Ask again",
    "sources": "Sources",
    "results": "Search results",
    "results_intro": "The best-matching sections of the docs:",
    "no_results": "No section of the docs matches that. Try other words.",
    "model_failed": "The assistant could not answer just now,"
    " so here are the best-matching sections.",
    "search_failed": "Something went wrong while searching. Please try again.",
    "throttled_in": "Too many questions right now. Try again in {n} s.",
    "throttled_soon": "Too many questions right now. Try again in a moment.",
    # votes
    "helpful": "Helpful",
    "not_helpful": "Not helpful",
    "reasons": "Reasons",
    "reason_wrong": "Wrong",
    "reason_outdated": "Outdated",
    "reason_not_asked": "Not what I asked",
    "reason_missing_source": "Missing a source",
    "reason_hard_to_read": "Hard to read",
    "what_was_wrong": "What was wrong?",
    "what_was_wrong_placeholder": "What was wrong? (optional)",
    "send_feedback": "Send feedback",
    "feedback_thanks": "Thanks, your feedback was noted.",
    # the composer
    "question": "Ask a question",
    "question_placeholder": "Ask a question…",
    "send": "Send",
    "stop": "Stop",
    "scope": "Search in",
    "fineprint": "Answers are drawn from these docs only.",
    "remove_quote": "Remove quote",
    # settings
    "instruction": "Instruction for answers",
    "instruction_placeholder": "e.g. answer in French, with short code samples",
    "instruction_note": "Applies from your next question; kept in this tab only.",
    # consent (history.consent: "ask")
    "consent_note": "Conversations stay in this page's memory until you choose to keep them.",
    "consent_keep": "Keep my conversations on this device",
    "consent_later": "Not now",
    "consent_setting_note": "Unticking forgets the conversations kept on this device.",
    # the history list
    "conversations": "Conversations",
    "no_conversations": "No conversations yet.",
    "delete_conversation": "Delete conversation",
    "delete_all": "Delete all",
    "confirm_delete_all": "Confirm delete all",
    "cancel": "Cancel",
    # copying answers and code
    "copy_answer": "Copy answer",
    "copy_code": "Copy code",
    "copied": "Copied",
    "copy_failed": "Could not copy",
    # searching, exporting and importing conversations
    "search_conversations": "Search conversations",
    "no_matches": "No conversations match",
    "export": "Export",
    "export_all": "Export all",
    "import": "Import",
    "imported": "Conversations imported: {n}",
    "import_other_site": "This file comes from another site, so nothing was imported.",
    "import_newer": "This file was made by a newer version of"
    " the assistant, so nothing was imported.",
    "import_damaged": "This file is not a conversation export, or"
    " it is damaged, so nothing was imported.",
    # a private conversation
    "private": "Private conversation",
    "private_marker": "Private",
    "private_note": "Not kept on this device; gone when you close this tab.",
}
