//! The stepper's state and screens: `update` driven by actions, and the
//! screen rendered on a `TestBackend` at a fixed size, snapshotted as text.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shapetrace::ModelConfig;
use shapetrace::config::Fault;
use shapetrace::tui::action::Action;
use shapetrace::tui::app::App;
use shapetrace::tui::theme::{COLOR, MONO};

fn app() -> App {
    App::new(ModelConfig::default(), COLOR).unwrap()
}

fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| f.render_widget(app, f.area())).unwrap();
    term
}

fn screen(app: &App) -> String {
    format!("{}", draw(app, 80, 24).backend())
}

#[test]
fn print_screens() {
    let mut a = app();
    for _ in 0..9 {
        a.update(Action::Next);
    }
    println!("{}", screen(&a));
    a.update(Action::TogglePresent);
    println!("{}", screen(&a));
    a.update(Action::TogglePresent);
    a.update(Action::ToggleHelp);
    println!("{}", screen(&a));
    a.update(Action::ToggleHelp);
    a.update(Action::CycleFault);
    a.update(Action::Last);
    println!("{}", screen(&a));
    a.update(Action::NextTab);
    println!("{}", screen(&a));
    a.update(Action::NextTab);
    a.update(Action::CycleFault);
    a.update(Action::First);
    a.update(Action::ToggleQuiz);
    for _ in 0..5 {
        a.update(Action::Next);
    }
    println!("{}", screen(&a));
    println!("{}", format!("{}", draw(&a, 60, 20).backend()));
}
