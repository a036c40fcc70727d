; Inno Setup 6 script: the Windows installer for VRAM Lab, made from the onedir bundle (dist\vramlab).
;
;   ISCC.exe /DAppVersion=0.1.0 packaging\windows\vramlab.iss   ->  dist\vramlab-0.1.0-windows-x86_64-setup.exe
;
; .github/workflows/installers.yml runs it on windows-latest. NOT TESTED in this project's environment (Linux
; only): the workflow is the first place this script runs.
; Per-user install by default (no administrator rights needed; the dialog offers all users), a Start-menu entry,
; an optional desktop icon, and an uninstaller. Relative paths are relative to this file.

#ifndef AppVersion
  #error Pass the version from pyproject.toml: ISCC /DAppVersion=x.y.z vramlab.iss
#endif

[Setup]
; The AppId never changes: it is how a newer installer finds and replaces an older install.
AppId={{543755FE-5837-450C-B040-031A197550F7}
AppName=VRAM Lab
AppVersion={#AppVersion}
AppPublisher=VRAM Lab developers
DefaultDirName={autopf}\VRAM Lab
DefaultGroupName=VRAM Lab
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=vramlab-{#AppVersion}-windows-x86_64-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\vramlab.exe
UninstallDisplayName=VRAM Lab {#AppVersion}

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "..\..\dist\vramlab\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\VRAM Lab"; Filename: "{app}\vramlab.exe"
Name: "{autodesktop}\VRAM Lab"; Filename: "{app}\vramlab.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\vramlab.exe"; Description: "{cm:LaunchProgram,VRAM Lab}"; Flags: nowait postinstall skipifsilent
