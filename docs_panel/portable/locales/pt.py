"""Portuguese (pt-BR and pt-PT alike: neutral wording)."""

STRINGS = {
    # launcher and header
    "launcher": "Perguntar à documentação",
    "launcher_title": "Perguntar à documentação ({keys})",
    "key_ctrl": "Ctrl",
    "ask_about_this": "Perguntar sobre isto",
    "panel": "Assistente da documentação",
    "heading": "Perguntar à documentação",
    "history": "Histórico de conversas",
    "new_chat": "Nova conversa",
    "settings": "Configurações",
    "close": "Fechar",
    # start-up
    "loading": "Carregando o assistente",
    "start_failed": "Não foi possível iniciar o assistente. Recarregue a página para tentar"
    " de novo.",
    "csp_blocked": "A política de segurança de conteúdo (CSP) deste site bloqueia o"
    " assistente. O site precisa permitir {missing}. No total, o assistente precisa de: {needs}.",
    "docs_changed": "A documentação mudou desde esta conversa."
    " Alguns links podem não funcionar mais.",
    # the thread
    "empty_title": "Pergunte sobre esta documentação",
    "empty_body": "As respostas trazem links para as seções de onde vêm.",
    "pending": "Sua pergunta é a próxima.",
    "pending_loading": "O assistente está carregando; sua pergunta é a próxima.",
    "asked_in": "Em {scope}",
    "reasoning": "Raciocínio",
    "answer_done": "Resposta concluída.",
    "stopped": "Interrompida",
    "ask_again": "Perguntar de novo",
    "sources": "Fontes",
    "results": "Resultados da pesquisa",
    "results_intro": "As seções da documentação que mais correspondem:",
    "no_results": "Nenhuma seção da documentação corresponde. Tente outras palavras.",
    "model_failed": "O assistente não conseguiu responder agora;"
    " aqui estão as seções que mais correspondem.",
    "search_failed": "Algo deu errado durante a pesquisa. Tente novamente.",
    "throttled_in": "Muitas perguntas no momento. Tente novamente em {n} s.",
    "throttled_soon": "Muitas perguntas no momento. Tente novamente daqui a pouco.",
    # votes
    "helpful": "Útil",
    "not_helpful": "Não foi útil",
    "reasons": "Motivos",
    "reason_wrong": "Incorreta",
    "reason_outdated": "Desatualizada",
    "reason_not_asked": "Não era o que perguntei",
    "reason_missing_source": "Falta uma fonte",
    "reason_hard_to_read": "Difícil de ler",
    "what_was_wrong": "O que estava errado?",
    "what_was_wrong_placeholder": "O que estava errado? (opcional)",
    "send_feedback": "Enviar feedback",
    "feedback_thanks": "Obrigado, seu feedback foi registrado.",
    # the composer
    "question": "Faça uma pergunta",
    "question_placeholder": "Faça uma pergunta…",
    "send": "Enviar",
    "stop": "Parar",
    "scope": "Pesquisar em",
    "fineprint": "As respostas vêm apenas desta documentação.",
    "remove_quote": "Remover citação",
    # settings
    "instruction": "Instrução para as respostas",
    "instruction_placeholder": "ex.: responda em inglês, com exemplos de código curtos",
    "instruction_note": "Vale a partir da próxima pergunta; guardada só nesta aba.",
    # consent (history.consent: "ask")
    "consent_note": "As conversas ficam na memória desta página até você decidir guardá-las.",
    "consent_keep": "Guardar minhas conversas neste dispositivo",
    "consent_later": "Agora não",
    "consent_setting_note": "Desmarcar apaga as conversas guardadas neste dispositivo.",
    # the history list
    "conversations": "Conversas",
    "no_conversations": "Nenhuma conversa ainda.",
    "delete_conversation": "Excluir conversa",
    "delete_all": "Excluir tudo",
    "confirm_delete_all": "Confirmar excluir tudo",
    "cancel": "Cancelar",
    # copying answers and code
    "copy_answer": "Copiar resposta",
    "copy_code": "Copiar código",
    "copied": "Copiado",
    "copy_failed": "Não foi possível copiar",
    # searching, exporting and importing conversations
    "search_conversations": "Pesquisar conversas",
    "no_matches": "Nenhuma conversa corresponde",
    "export": "Exportar",
    "export_all": "Exportar tudo",
    "import": "Importar",
    "imported": "Conversas importadas: {n}",
    "import_other_site": "Este arquivo vem de outro site, então nada foi importado.",
    "import_newer": "Este arquivo foi criado por uma versão mais"
    " recente do assistente, então nada foi importado.",
    "import_damaged": "Este arquivo não é uma exportação de conversas"
    " ou está danificado, então nada foi importado.",
    # a private conversation
    "private": "Conversa privada",
    "private_marker": "Privada",
    "private_note": "Não fica guardada neste dispositivo; some quando você fechar esta aba.",
}
