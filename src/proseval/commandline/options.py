"""The options every command that runs a task shares (`typer.Option` declarations)."""

import typer

ModelOpt = typer.Option(None, "--model", "-m", help="Candidate model, PROVIDER/MODEL (e.g. openai/gpt-4o-mini, "
                        "openai-compatible/qwen2.5-7b, anthropic/claude-sonnet-4-5, local/smollm2-135m).")
RoleOpt = typer.Option(None, "--role", "-r", help="Bind a role: ROLE=PROVIDER/MODEL, e.g. judge=openai/gpt-4o-mini. Repeatable.")
BaseUrlOpt = typer.Option(None, "--base-url", help="OpenAI-compatible (or Anthropic) endpoint; repeat to spread "
                          "requests over replicas.")
RoleBaseUrlOpt = typer.Option(None, "--role-base-url", help="ROLE=URL: endpoint for one role only. Repeatable.")
ConcurrencyOpt = typer.Option(None, "--concurrency", "-c", help="Requests in flight per role (default: 16 remote, 1 local).")
RoleConcurrencyOpt = typer.Option(None, "--role-concurrency", help="ROLE=N: concurrency for one role. Repeatable.")
GenOpt = typer.Option(None, "--gen", "-g", help="ROLE.PARAM=VALUE generation setting, e.g. candidate.max_tokens=2048, "
                      "judge.temperature=0, candidate.top_k=20, candidate.timeout=1800; ROLE.extra.KEY=VALUE sends a "
                      "provider-specific field as given. Only what is set is sent. Repeatable.")
ConfigOpt = typer.Option(None, "--config", help="YAML file mirroring these options (flags win).")
DisplayOpt = typer.Option(None, "--display", help="Progress display: rich, plain (log lines) or none.")
NoCacheOpt = typer.Option(None, "--no-cache", help="Neither read nor write the response cache.", show_default=False)
PresetOpt = typer.Option(None, "--preset", help="A named setup of the task, e.g. paper or official (see: proseval "
                         "describe TASK); your own options and -g settings win over it.")
BatchOpt = typer.Option(None, "--batch", help="ROLE: send this role's requests through the provider's batch API "
                        "(OpenAI-compatible /v1/batches or Anthropic Message Batches; cheaper, slower), "
                        "collected phase by phase. Repeatable. "
                        "See docs/many-models.md, Batch mode.")
PromptOpt = typer.Option(None, "--prompt", help="NAME=FILE: send the text of FILE as the task's prompt NAME "
                         "(see: proseval describe TASK). Repeatable.")
