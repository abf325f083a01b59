;;; eglot_door.el --- drive agent-lsp's plain-LSP door from real eglot  -*- lexical-binding: t -*-
;; Run: emacs --batch --no-init-file -l eglot_door.el (Debian activates its elpa packages in site-start, which -Q skips), with AGENT_LSP, FILE and RESULT
;; in the environment. Writes "ok" to RESULT, or what went wrong.
(require 'eglot)
(require 'python)

(defvar test-messages nil "Every message shown, newest first.")
(defvar test-prompts nil "Every completing-read prompt and its choices, newest first.")
(defvar test-choice "Agent: explain" "What completing-read answers next.")
(defvar test-failures nil)

(defun test-fail (fmt &rest args)
  (push (apply #'format fmt args) test-failures))

(advice-add 'message :around
            (lambda (orig fmt &rest args)
              (when fmt (push (apply #'format fmt args) test-messages))
              (apply orig fmt args)))

;; Approvals (window/showMessageRequest) and the code action menu both
;; ask with completing-read: answer as the user would.
(advice-add 'completing-read :override
            (lambda (prompt collection &rest _)
              (let ((choices (mapcar (lambda (c) (if (consp c) (car c) c))
                                     (if (functionp collection) (funcall collection "" nil t) collection))))
                (push (cons prompt choices) test-prompts)
                (if (member test-choice choices) test-choice (car choices)))))

(defun test-dump-server ()
  "Make the server print its goroutines (SIGQUIT) and print its stderr."
  (let* ((server (eglot-current-server))
         (proc (and server (jsonrpc--process server))))
    (when (and proc (process-live-p proc))
      (signal-process proc 'SIGQUIT)
      (let ((deadline (+ (float-time) 10)))
        (while (and (process-live-p proc) (< (float-time) deadline))
          (accept-process-output nil 0.1))))
    ;; The server's stderr (its goroutines) first, then the end of the
    ;; events buffer: a long log gets cut where it is shown.
    (dolist (kind '("stderr" "events"))
      (dolist (b (buffer-list))
        (when (string-match-p kind (buffer-name b))
          (let ((text (with-current-buffer b (buffer-string))))
            (princ (format "--- %s:\n%s\n" (buffer-name b)
                           (if (> (length text) 8000) (substring text -8000) text))
                   #'external-debugging-output)))))))

(defun test-wait (what pred &optional secs)
  (let ((deadline (+ (float-time) (or secs 30))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (test-fail "timed out waiting for %s" what)
      ;; What the server was doing tells why it did not get there.
      (test-dump-server)
      (throw 'test-abort nil))))

(defun test-messages-matching (re)
  (seq-filter (lambda (m) (string-match-p re m)) test-messages))

(defun test-done-count () (length (test-messages-matching "agent: done")))

(setq eglot-server-programs `((python-mode . (,(getenv "AGENT_LSP")))))
(setq eglot-sync-connect 5 eglot-autoshutdown nil
      ;; The agent's edits come through workspace/applyEdit; the approval
      ;; was given in the showMessageRequest already.
      eglot-confirm-server-initiated-edits nil)
(advice-add 'y-or-n-p :override (lambda (prompt) (push (list prompt "y") test-prompts) t))

(catch 'test-abort
(find-file (getenv "FILE"))
(python-mode)
(eglot-ensure)
(run-hooks 'post-command-hook)
(test-wait "eglot to connect" #'eglot-current-server)

(let ((server (eglot-current-server)))
  (unless server (test-fail "eglot did not connect to agent-lsp"))
  (when server
    ;; 1. A code action on the selection, picked from eglot's menu.
    (goto-char (point-min))
    (let ((beg (point)) (end (progn (forward-line 2) (point))))
      (condition-case err
          ;; eglot pops a mouse menu when the last event was a list
          ;; (nil, in batch): a key event makes it ask in the minibuffer.
          (let ((last-nonmenu-event ?\r))
            (eglot-code-actions beg end nil t))
        (error (test-fail "eglot-code-actions: %S" err))))
    (let ((menu (seq-find (lambda (p) (member "Agent: explain" (cdr p))) test-prompts)))
      (unless menu (test-fail "the code action menu lacks Agent: explain: %S" test-prompts)))
    (test-wait "the first turn's end" (lambda () (>= (test-done-count) 1)))
    (unless (test-messages-matching "It averages the values\\.")
      (test-fail "the final showMessage did not carry the answer: %S" (seq-take test-messages 10)))
    (unless (test-messages-matching "Transcript: ")
      (test-fail "the final showMessage did not name the transcript"))

    ;; 2. A free-form prompt, as the README tells Emacs users to send one;
    ;; its edit is approved in the showMessageRequest.
    (setq test-choice "Allow")
    (eglot-execute-command server "agent.prompt" (vector "Fix average"))
    (test-wait "the second turn's end" (lambda () (>= (test-done-count) 2)))
    (let ((approval (seq-find (lambda (p) (member "Allow" (cdr p))) test-prompts)))
      (cond
       ((not approval) (test-fail "no approval was asked: %S" test-prompts))
       ((not (string-match-p "Edit" (car approval)))
        (test-fail "the approval does not name the tool: %S" (car approval)))
       ((not (string-match-p "\\+    return sum(values) / len(values)" (car approval)))
        (test-fail "the approval does not show the changed lines: %S" (car approval)))))
    (test-wait "the edit in the buffer"
               (lambda () (string-match-p "len(values)" (buffer-string))))
    (unless (test-messages-matching "Fixed the division\\.")
      (test-fail "the second answer did not reach the user: %S" (seq-take test-messages 10)))

    ;; 3. A command right after "agent: done" is not refused as busy.
    (condition-case err
        (eglot-execute-command server "agent.prompt" (vector "Thanks"))
      (error (test-fail "agent.prompt right after done: %S" err)))
    (test-wait "the third turn's end" (lambda () (>= (test-done-count) 3)))

    ;; 4. Shutdown. eglot 1.9's jsonrpc kills the server right after
    ;; sending exit (it reports "exited with status 9"), so how fast the
    ;; server exits is checked by TestExitDoesNotWaitForTheReader instead.
    (eglot-shutdown server)))
)

(princ (format "messages, newest first: %S\nprompts: %S\n" (seq-take test-messages 40) test-prompts)
       #'external-debugging-output)
(when (and test-failures (getenv "EGLOT_EVENTS"))
  (dolist (b (buffer-list))
    (when (string-match-p "events" (buffer-name b))
      (princ (with-current-buffer b (buffer-string)) #'external-debugging-output))))
(with-temp-file (getenv "RESULT")
  (insert (if test-failures
              (mapconcat #'identity (reverse test-failures) "\n")
            "ok")))
(kill-emacs 0)
