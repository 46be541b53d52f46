"""Django's admin, as released on PyPI, on a tiny project written to a folder at start.

The project is what Django's tutorial makes: settings, one app `library` with two models
(Author, and Book with a ForeignKey to it), a ModelAdmin with list_display, list_filter,
search_fields and an action of its own; and a second app `lending` (members, loans of
books) whose admin uses autocomplete_fields, a date hierarchy and an inline; migrated into
SQLite with a superuser. The admin's
pages, forms, widgets and scripts are Django's own. It is served by Django's threaded WSGI
server in a process of its own, so another Django release (a `pip install --target` folder,
`django_path`) serves the same project as a real redesign.

Run as a script (`python django_admin.py FOLDER`), it builds the database once, keeps a
pristine copy, and prints "<Django version> <port>" once the port accepts connections.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

USER = "admin"
AUTHORS = ("Ada Lovelace", "Alan Turing", "Grace Hopper", "Katherine Johnson")
BOOKS = (  # title, author (index in AUTHORS), published
    ("Notes on the Analytical Engine", 0, "1843-09-01"),
    ("Computing Machinery and Intelligence", 1, "1950-10-01"),
    ("On Computable Numbers", 1, "1936-11-12"),
    ("The Education of a Computer", 2, "1952-05-02"),
    ("Orbital Mechanics Notes", 3, "1961-02-20"),
)

SETTINGS = """\
from pathlib import Path

HERE = Path(__file__).resolve().parent
SECRET_KEY = "a key for a throwaway project on 127.0.0.1"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles",
    "library", "lending",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "bookshop_site.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": HERE.parent / "db.sqlite3"},
}
STATIC_URL = "static/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_TZ = True
"""

URLS = """\
from django.contrib import admin
from django.urls import path

urlpatterns = [path("admin/", admin.site.urls)]
"""

MODELS = """\
from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.CASCADE)
    published = models.DateField()
    in_print = models.BooleanField(default=True)

    class Meta:
        ordering = ["title"]

    def __str__(self):
        return self.title
"""

ADMIN = """\
from django.contrib import admin

from .models import Author, Book


@admin.action(description="Mark selected books as out of print")
def out_of_print(modeladmin, request, queryset):
    queryset.update(in_print=False)


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["title", "author", "published", "in_print"]
    list_filter = ["author", "in_print"]
    search_fields = ["title", "author__name"]
    actions = [out_of_print]


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    search_fields = ["name"]
"""


# A second app, beside the tutorial's, for the admin's deeper widgets: a Select2 search
# for the book (autocomplete_fields), the related-object "+" popup for the member, the
# sidebar's list filters, a date hierarchy, and loans edited inline on a member's page.
MEMBERS = ("Edsger Dijkstra", "Barbara Liskov", "Donald Knuth")
LOANS = (  # book (index in BOOKS), member (index in MEMBERS), lent, returned
    (1, 0, "2025-01-10", True),
    (2, 1, "2025-03-05", False),
    (4, 2, "2025-03-20", False),
    (0, 1, "2026-02-14", False),
)

LENDING_MODELS = """\
from django.db import models

from library.models import Book


class Member(models.Model):
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Loan(models.Model):
    book = models.ForeignKey(Book, on_delete=models.CASCADE)
    member = models.ForeignKey(Member, on_delete=models.CASCADE)
    lent = models.DateField()
    returned = models.BooleanField(default=False)

    class Meta:
        ordering = ["lent"]

    def __str__(self):
        return f"{self.book} to {self.member}"
"""

LENDING_ADMIN = """\
from django.contrib import admin

from .models import Loan, Member


class LoanInline(admin.TabularInline):
    model = Loan
    extra = 0


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    search_fields = ["name"]
    inlines = [LoanInline]


@admin.register(Loan)
class LoanAdmin(admin.ModelAdmin):
    list_display = ["book", "member", "lent", "returned"]
    list_filter = ["returned", "member"]
    date_hierarchy = "lent"
    autocomplete_fields = ["book"]
"""


def fixture() -> list[dict[str, Any]]:
    authors = [{"model": "library.author", "pk": at + 1, "fields": {"name": name}}
               for at, name in enumerate(AUTHORS)]
    books = [{"model": "library.book", "pk": at + 1,
              "fields": {"title": title, "author": author + 1, "published": published}}
             for at, (title, author, published) in enumerate(BOOKS)]
    members = [{"model": "lending.member", "pk": at + 1, "fields": {"name": name}}
               for at, name in enumerate(MEMBERS)]
    loans = [{"model": "lending.loan", "pk": at + 1,
              "fields": {"book": book + 1, "member": member + 1, "lent": lent,
                         "returned": returned}}
             for at, (book, member, lent, returned) in enumerate(LOANS)]
    return authors + books + members + loans


def write_project(folder: Path) -> None:
    files = {
        "bookshop_site/__init__.py": "", "bookshop_site/settings.py": SETTINGS,
        "bookshop_site/urls.py": URLS, "library/__init__.py": "",
        "library/migrations/__init__.py": "", "library/models.py": MODELS,
        "library/admin.py": ADMIN, "lending/__init__.py": "",
        "lending/migrations/__init__.py": "", "lending/models.py": LENDING_MODELS,
        "lending/admin.py": LENDING_ADMIN, "books.json": json.dumps(fixture()),
    }
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def copy_database(source: Path, target: Path) -> None:
    """`target` made a copy of `source` through SQLite itself (safe while served)."""
    with sqlite3.connect(source) as a, sqlite3.connect(target) as b:
        a.backup(b)
    a.close()
    b.close()


@dataclass
class DjangoAdmin:
    """The admin of the project in `folder`, served on 127.0.0.1 by a Django release:
    the installed one, or the one `pip install --target django_path` put there."""

    folder: Path
    django_path: Path | None = None
    # The superuser's password: made here, given to the server through its environment,
    # and to a test only as a variable's value.
    password: str = field(default_factory=lambda: secrets.token_urlsafe(16), repr=False)
    version: str = ""
    port: int = 0
    process: subprocess.Popen[str] | None = field(default=None, repr=False)

    def start(self) -> DjangoAdmin:
        write_project(self.folder)
        env = {**os.environ, "DJANGO_SUPERUSER_PASSWORD": self.password}
        if self.django_path is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(self.django_path),
                                                 env.get("PYTHONPATH", "")])
        with open(self.folder / "server.log", "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, __file__, str(self.folder)], env=env, text=True,
                stdout=subprocess.PIPE, stderr=log)
        assert self.process.stdout is not None
        ready = self.process.stdout.readline().split()  # once the port accepts connections
        if len(ready) != 2:
            self.close()
            raise RuntimeError(f"Django's admin did not start: see {self.folder / 'server.log'}")
        self.version, self.port = ready[0], int(ready[1])
        return self

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def reset(self) -> None:
        """The database as it was built: the same books, authors and user."""
        copy_database(self.folder / "pristine.sqlite3", self.folder / "db.sqlite3")

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.folder / "db.sqlite3") as connection:
            found = connection.execute(query).fetchall()
        connection.close()
        return found

    def close(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait()
            self.process = None


def serve(folder: Path) -> None:
    """Build the project's database, then serve its admin (and Django's static files)."""
    sys.path.insert(0, str(folder))
    os.environ["DJANGO_SETTINGS_MODULE"] = "bookshop_site.settings"
    import django
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.management import call_command
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    django.setup()
    call_command("makemigrations", "library", "lending", verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("loaddata", str(folder / "books.json"), verbosity=0)
    call_command("createsuperuser", username=USER, email="admin@example.com",
                 interactive=False, verbosity=0)  # its password: DJANGO_SUPERUSER_PASSWORD
    copy_database(folder / "db.sqlite3", folder / "pristine.sqlite3")
    server = ThreadedWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
    server.set_app(StaticFilesHandler(get_wsgi_application()))
    print(django.get_version(), server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
