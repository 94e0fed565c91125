"""Spanish."""

STRINGS = {
    # launcher and header
    "launcher": "Preguntar a la documentación",
    "launcher_title": "Preguntar a la documentación ({keys})",
    "key_ctrl": "Ctrl",
    "ask_about_this": "Preguntar sobre esto",
    "panel": "Asistente de la documentación",
    "heading": "Preguntar a la documentación",
    "history": "Historial de conversaciones",
    "new_chat": "Nueva conversación",
    "settings": "Ajustes",
    "close": "Cerrar",
    # start-up
    "loading": "Cargando el asistente",
    "start_failed": "El asistente no pudo iniciarse. Recarga la página para volver a intentarlo.",
    "csp_blocked": "La política de seguridad de contenido (CSP) de este sitio bloquea el"
    " asistente. El sitio debe permitir {missing}. En total, el asistente necesita: {needs}.",
    "docs_changed": "La documentación ha cambiado desde esta conversación."
    " Es posible que algunos enlaces ya no funcionen.",
    # the thread
    "empty_title": "Pregunta sobre esta documentación",
    "empty_body": "Las respuestas enlazan a las secciones de las que proceden.",
    "pending": "Tu pregunta es la siguiente.",
    "pending_loading": "El asistente se está cargando; tu pregunta es la siguiente.",
    "asked_in": "En {scope}",
    "reasoning": "Razonamiento",
    "answer_done": "Respuesta completa.",
    "stopped": "Detenida",
    "ask_again": "Volver a preguntar",
    "sources": "Fuentes",
    "results": "Resultados de búsqueda",
    "results_intro": "Las secciones de la documentación que mejor coinciden:",
    "no_results": "Ninguna sección de la documentación coincide. Prueba con otras palabras.",
    "model_failed": "El asistente no ha podido responder ahora;"
    " estas son las secciones que mejor coinciden.",
    "search_failed": "Algo salió mal durante la búsqueda. Inténtalo de nuevo.",
    "throttled_in": "Demasiadas preguntas ahora mismo. Vuelve a intentarlo en {n} s.",
    "throttled_soon": "Demasiadas preguntas ahora mismo. Vuelve a intentarlo en un momento.",
    # votes
    "helpful": "Útil",
    "not_helpful": "No es útil",
    "reasons": "Motivos",
    "reason_wrong": "Incorrecta",
    "reason_outdated": "Desactualizada",
    "reason_not_asked": "No es lo que pregunté",
    "reason_missing_source": "Falta una fuente",
    "reason_hard_to_read": "Difícil de leer",
    "what_was_wrong": "¿Qué estaba mal?",
    "what_was_wrong_placeholder": "¿Qué estaba mal? (opcional)",
    "send_feedback": "Enviar comentarios",
    "feedback_thanks": "Gracias, hemos recibido tus comentarios.",
    # the composer
    "question": "Haz una pregunta",
    "question_placeholder": "Haz una pregunta…",
    "send": "Enviar",
    "stop": "Detener",
    "scope": "Buscar en",
    "fineprint": "Las respuestas se basan solo en esta documentación.",
    "remove_quote": "Quitar la cita",
    # settings
    "instruction": "Instrucción para las respuestas",
    "instruction_placeholder": "p. ej., responde en inglés, con ejemplos de código breves",
    "instruction_note": "Se aplica desde tu próxima pregunta; solo se guarda en esta pestaña.",
    # consent (history.consent: "ask")
    "consent_note": "Las conversaciones se quedan en la memoria"
    " de esta página hasta que decidas guardarlas.",
    "consent_keep": "Guardar mis conversaciones en este dispositivo",
    "consent_later": "Ahora no",
    "consent_setting_note": "Al desmarcarlo se borran las"
    " conversaciones guardadas en este dispositivo.",
    # the history list
    "conversations": "Conversaciones",
    "no_conversations": "Aún no hay conversaciones.",
    "delete_conversation": "Eliminar conversación",
    "delete_all": "Eliminar todo",
    "confirm_delete_all": "Confirmar eliminar todo",
    "cancel": "Cancelar",
    # copying answers and code
    "copy_answer": "Copiar respuesta",
    "copy_code": "Copiar código",
    "copied": "Copiado",
    "copy_failed": "No se pudo copiar",
    # searching, exporting and importing conversations
    "search_conversations": "Buscar conversaciones",
    "no_matches": "Ninguna conversación coincide",
    "export": "Exportar",
    "export_all": "Exportar todo",
    "import": "Importar",
    "imported": "Conversaciones importadas: {n}",
    "import_other_site": "Este archivo viene de otro sitio, así que no se importó nada.",
    "import_newer": "Este archivo lo creó una versión más reciente"
    " del asistente, así que no se importó nada.",
    "import_damaged": "Este archivo no es una exportación de conversaciones"
    " o está dañado, así que no se importó nada.",
    # a private conversation
    "private": "Conversación privada",
    "private_marker": "Privada",
    "private_note": "No se guarda en este dispositivo; desaparece al cerrar esta pestaña.",
}
