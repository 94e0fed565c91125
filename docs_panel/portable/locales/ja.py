"""Japanese."""

STRINGS = {
    # launcher and header
    "launcher": "ドキュメントに質問",
    "launcher_title": "ドキュメントに質問（{keys}）",
    "key_ctrl": "Ctrl",
    "ask_about_this": "この部分について質問",
    "panel": "ドキュメントアシスタント",
    "heading": "ドキュメントに質問",
    "history": "会話の履歴",
    "new_chat": "新しい会話",
    "settings": "設定",
    "close": "閉じる",
    # start-up
    "loading": "アシスタントを読み込んでいます",
    "start_failed": "アシスタントを起動できませんでした。ページを再読み込みしてください。",
    "csp_blocked": "このサイトのコンテンツセキュリティポリシー（CSP）がアシスタントを"
    "ブロックしています。サイトで {missing} を許可する必要があります。"
    "アシスタントに必要な設定：{needs}。",
    "docs_changed": "この会話の後にドキュメントが更新されました。"
    "一部のリンクは機能しない可能性があります。",
    # the thread
    "empty_title": "このドキュメントについて質問できます",
    "empty_body": "回答には、根拠となるセクションへのリンクが付きます。",
    "pending": "次にあなたの質問に回答します。",
    "pending_loading": "アシスタントを読み込み中です。次にあなたの質問に回答します。",
    "asked_in": "{scope} 内",
    "reasoning": "推論",
    "answer_done": "回答が完了しました。",
    "stopped": "停止しました",
    "ask_again": "もう一度質問",
    "sources": "出典",
    "results": "検索結果",
    "results_intro": "ドキュメント内で最も一致するセクション：",
    "no_results": "一致するセクションがありません。別の言葉で試してください。",
    "model_failed": "アシスタントが今は回答できないため、最も一致するセクションを表示します。",
    "search_failed": "検索中に問題が発生しました。もう一度お試しください。",
    "throttled_in": "現在、質問が多すぎます。{n} 秒後にもう一度お試しください。",
    "throttled_soon": "現在、質問が多すぎます。しばらくしてからもう一度お試しください。",
    # votes
    "helpful": "役に立った",
    "not_helpful": "役に立たなかった",
    "reasons": "理由",
    "reason_wrong": "誤りがある",
    "reason_outdated": "情報が古い",
    "reason_not_asked": "質問と違う",
    "reason_missing_source": "出典がない",
    "reason_hard_to_read": "読みにくい",
    "what_was_wrong": "何が問題でしたか？",
    "what_was_wrong_placeholder": "何が問題でしたか？（任意）",
    "send_feedback": "フィードバックを送信",
    "feedback_thanks": "フィードバックをありがとうございました。",
    # the composer
    "question": "質問する",
    "question_placeholder": "質問を入力…",
    "send": "送信",
    "stop": "停止",
    "scope": "検索範囲",
    "fineprint": "回答はこのドキュメントのみに基づきます。",
    "remove_quote": "引用を削除",
    # settings
    "instruction": "回答への指示",
    "instruction_placeholder": "例：英語で、短いコード例を添えて回答",
    "instruction_note": "次の質問から適用され、このタブにのみ保存されます。",
    # consent (history.consent: "ask")
    "consent_note": "保存を選ぶまで、会話はこのページのメモリ内にのみ残ります。",
    "consent_keep": "この端末に会話を保存する",
    "consent_later": "今はしない",
    "consent_setting_note": "チェックを外すと、この端末に保存した会話は消去されます。",
    # the history list
    "conversations": "会話",
    "no_conversations": "まだ会話はありません。",
    "delete_conversation": "会話を削除",
    "delete_all": "すべて削除",
    "confirm_delete_all": "すべて削除を確定",
    "cancel": "キャンセル",
    # copying answers and code
    "copy_answer": "回答をコピー",
    "copy_code": "コードをコピー",
    "copied": "コピーしました",
    "copy_failed": "コピーできませんでした",
    # searching, exporting and importing conversations
    "search_conversations": "会話を検索",
    "no_matches": "一致する会話はありません",
    "export": "エクスポート",
    "export_all": "すべてエクスポート",
    "import": "インポート",
    "imported": "インポートした会話: {n}",
    "import_other_site": "このファイルは別のサイトのものなので、何もインポートしませんでした。",
    "import_newer": "このファイルは新しいバージョンのアシスタントで作られたため、"
    "何もインポートしませんでした。",
    "import_damaged": "このファイルは会話のエクスポートではないか破損しているため、"
    "何もインポートしませんでした。",
    # a private conversation
    "private": "プライベート会話",
    "private_marker": "プライベート",
    "private_note": "この端末には保存されず、このタブを閉じると消えます。",
}
