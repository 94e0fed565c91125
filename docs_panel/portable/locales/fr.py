"""French."""

STRINGS = {
    # launcher and header
    "launcher": "Interroger la doc",
    "launcher_title": "Interroger la doc ({keys})",
    "key_ctrl": "Ctrl",
    "ask_about_this": "Demander à ce sujet",
    "panel": "Assistant de la documentation",
    "heading": "Interroger la doc",
    "history": "Historique des conversations",
    "new_chat": "Nouvelle conversation",
    "settings": "Paramètres",
    "close": "Fermer",
    # start-up
    "loading": "Chargement de l’assistant",
    "start_failed": "L’assistant n’a pas pu démarrer. Rechargez la page pour réessayer.",
    "csp_blocked": "La politique de sécurité du contenu (CSP) de ce site bloque l’assistant."
    " Le site doit autoriser {missing}. Au total, l’assistant a besoin de : {needs}.",
    "docs_changed": "La documentation a changé depuis cette conversation."
    " Certains liens peuvent ne plus fonctionner.",
    # the thread
    "empty_title": "Posez une question sur cette documentation",
    "empty_body": "Les réponses renvoient aux sections dont elles proviennent.",
    "pending": "Votre question est la suivante.",
    "pending_loading": "L’assistant se charge ; votre question est la suivante.",
    "asked_in": "Dans {scope}",
    "reasoning": "Raisonnement",
    "answer_done": "Réponse terminée.",
    "stopped": "Interrompue",
    "ask_again": "Redemander",
    "sources": "Sources",
    "results": "Résultats de recherche",
    "results_intro": "Les sections de la documentation les plus pertinentes :",
    "no_results": "Aucune section de la documentation ne correspond. Essayez d’autres mots.",
    "model_failed": "L’assistant n’a pas pu répondre pour l’instant ;"
    " voici les sections les plus pertinentes.",
    "search_failed": "Une erreur s’est produite pendant la recherche. Veuillez réessayer.",
    "throttled_in": "Trop de questions en ce moment. Réessayez dans {n} s.",
    "throttled_soon": "Trop de questions en ce moment. Réessayez dans un instant.",
    # votes
    "helpful": "Utile",
    "not_helpful": "Pas utile",
    "reasons": "Raisons",
    "reason_wrong": "Inexact",
    "reason_outdated": "Obsolète",
    "reason_not_asked": "Hors sujet",
    "reason_missing_source": "Source manquante",
    "reason_hard_to_read": "Difficile à lire",
    "what_was_wrong": "Qu’est-ce qui n’allait pas ?",
    "what_was_wrong_placeholder": "Qu’est-ce qui n’allait pas ? (facultatif)",
    "send_feedback": "Envoyer l’avis",
    "feedback_thanks": "Merci, votre avis a été pris en compte.",
    # the composer
    "question": "Poser une question",
    "question_placeholder": "Posez une question…",
    "send": "Envoyer",
    "stop": "Arrêter",
    "scope": "Rechercher dans",
    "fineprint": "Les réponses s’appuient uniquement sur cette documentation.",
    "remove_quote": "Retirer la citation",
    # settings
    "instruction": "Consigne pour les réponses",
    "instruction_placeholder": "p. ex. réponds en anglais, avec de courts exemples de code",
    "instruction_note": "S’applique dès votre prochaine question ; gardée dans cet onglet"
    " uniquement.",
    # consent (history.consent: "ask")
    "consent_note": "Les conversations restent dans la mémoire de cette page"
    " tant que vous ne choisissez pas de les garder.",
    "consent_keep": "Garder mes conversations sur cet appareil",
    "consent_later": "Pas maintenant",
    "consent_setting_note": "Décocher efface les conversations gardées sur cet appareil.",
    # the history list
    "conversations": "Conversations",
    "no_conversations": "Aucune conversation pour l’instant.",
    "delete_conversation": "Supprimer la conversation",
    "delete_all": "Tout supprimer",
    "confirm_delete_all": "Confirmer la suppression",
    "cancel": "Annuler",
    # copying answers and code
    "copy_answer": "Copier la réponse",
    "copy_code": "Copier le code",
    "copied": "Copié",
    "copy_failed": "Copie impossible",
    # searching, exporting and importing conversations
    "search_conversations": "Rechercher dans les conversations",
    "no_matches": "Aucune conversation ne correspond",
    "export": "Exporter",
    "export_all": "Tout exporter",
    "import": "Importer",
    "imported": "Conversations importées : {n}",
    "import_other_site": "Ce fichier provient d’un autre site : rien n’a été importé.",
    "import_newer": "Ce fichier a été créé par une version plus"
    " récente de l’assistant : rien n’a été importé.",
    "import_damaged": "Ce fichier n’est pas un export de conversations"
    " ou il est endommagé : rien n’a été importé.",
    # a private conversation
    "private": "Conversation privée",
    "private_marker": "Privée",
    "private_note": "Non conservée sur cet appareil ; disparaît à la fermeture de cet onglet.",
}
